//go:build !shop_experimental

package v1

// Tuning is the stable tuning.
type Tuning struct {
	Speed int32 `json:"speed,omitempty"`
}
