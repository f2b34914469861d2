/*
Copyright The kgen Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
*/

// +k8s:deepcopy-gen=package
// +groupName=example.kgen.dev

// Package example is the internal (hub) version of the example.kgen.dev API group.
// Every served version converts to and from these types; they are never served.
package example
