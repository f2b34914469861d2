// kgen's description of k8s.io/apimachinery/pkg/version: the build and version
// information a server reports at /version.

// +k8s:openapi-gen=true
// +k8s:openapi-model-package=io.k8s.apimachinery.pkg.version
package version

// Info is what a binary reports about its version and build.
type Info struct {
	// major is the binary's major version.
	Major string `json:"major"`
	// minor is the binary's minor version.
	Minor string `json:"minor"`
	// emulationMajor is the major version the binary emulates.
	EmulationMajor string `json:"emulationMajor,omitempty"`
	// emulationMinor is the minor version the binary emulates.
	EmulationMinor string `json:"emulationMinor,omitempty"`
	// minCompatibilityMajor is the major part of the oldest version the binary stays compatible with.
	MinCompatibilityMajor string `json:"minCompatibilityMajor,omitempty"`
	// minCompatibilityMinor is the minor part of the oldest version the binary stays compatible with.
	MinCompatibilityMinor string `json:"minCompatibilityMinor,omitempty"`
	GitVersion            string `json:"gitVersion"`
	GitCommit             string `json:"gitCommit"`
	GitTreeState          string `json:"gitTreeState"`
	BuildDate             string `json:"buildDate"`
	GoVersion             string `json:"goVersion"`
	Compiler              string `json:"compiler"`
	Platform              string `json:"platform"`
}
