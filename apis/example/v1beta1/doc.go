/*
Copyright The kgen Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
*/

// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=kgen.dev/example/apis/example
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:protobuf-gen=package
// +groupName=example.kgen.dev

// Package v1beta1 is the beta version of the example.kgen.dev API group.
// It predates plural params and still serves the singular param field.
package v1beta1
