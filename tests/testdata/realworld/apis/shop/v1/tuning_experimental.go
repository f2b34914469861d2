//go:build shop_experimental

package v1

// Tuning is the experimental tuning.
type Tuning struct {
	Speed int32 `json:"speed,omitempty"`
	Boost bool  `json:"boost,omitempty"`
}
