package v1

// Tuning is declared for Windows only; the file name excludes it on linux.
type Tuning struct{}
