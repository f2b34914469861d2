package v1

type Store struct{}
