/*
Copyright 2024 The Shop Authors.

Licensed under the Apache License, Version 2.0 (the "License");
*/

// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=shop.example.com
// +kubebuilder:validation:Optional

// Package v1 contains API Schema definitions for the shop v1 API group.
package v1
