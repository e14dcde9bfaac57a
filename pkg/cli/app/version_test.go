package app

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	const rev = "7a0c7063b96cb4fb39a2c5f2efc8b92b5adaaef8"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name     string
		mod      string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install @tag", "v1.2.3", nil, "v1.2.3"},
		{"go install @commit", "v0.0.0-20261130120428-7a0c7063b96c", nil, "v0.0.0-20261130120428-7a0c7063b96c"},
		{"go test, -buildvcs=false", "(devel)", nil, "devel"},
		{"no module version", "", nil, "devel"},
		{"checkout, Go before 1.24", "(devel)", vcs("false"), "devel+7a0c7063b96c"},
		{"checkout, dirty", "(devel)", vcs("true"), "devel+7a0c7063b96c-dirty"},
		{"checkout, Go 1.24+ pseudo-version", "v0.0.0-20261130120428-7a0c7063b96c+dirty", vcs("true"), "devel+7a0c7063b96c-dirty"},
		{"checkout after a tag", "v1.2.4-0.20261130120428-7a0c7063b96c", vcs("false"), "devel+7a0c7063b96c"},
		{"checkout after a pre-release", "v1.2.4-rc.1.0.20261130120428-7a0c7063b96c", vcs("false"), "devel+7a0c7063b96c"},
		{"tagged commit", "v1.2.3", vcs("false"), "v1.2.3+7a0c7063b96c"},
		{"tagged commit, dirty", "v1.2.3+dirty", vcs("true"), "v1.2.3+7a0c7063b96c-dirty"},
		{"pre-release tag", "v1.3.0-rc.1", vcs("false"), "v1.3.0-rc.1+7a0c7063b96c"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.mod, tt.settings); got != tt.want {
			t.Errorf("%s: versionOf(%q) = %q, want %q", tt.name, tt.mod, got, tt.want)
		}
	}
}
