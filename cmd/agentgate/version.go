package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit may be set at build time, for builds without module
// or VCS information (-buildvcs=false, a plain `go build` of a copied tree):
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=$(git rev-parse HEAD)" ./cmd/agentgate
var version, commit string

// buildInfo is what `agentgate version` reports.
type buildInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// readBuildInfo takes the module version and VCS commit recorded by the Go
// toolchain, and the ones set with -ldflags where those are missing.
func readBuildInfo() buildInfo {
	bi := buildInfo{Module: "github.com/agentgate/agentgate", Version: "(devel)", Commit: "unknown", Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path != "" {
			bi.Module = info.Main.Path
		}
		if info.Main.Version != "" {
			bi.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	if version != "" && (bi.Version == "(devel)" || bi.Version == "") {
		bi.Version = version
	}
	if commit != "" && bi.Commit == "unknown" {
		bi.Commit = commit
	}
	return bi
}

func (b buildInfo) String() string {
	s := fmt.Sprintf("agentgate %s (commit %s", b.Version, b.Commit)
	if b.Modified {
		s += ", modified"
	}
	return s + ", " + b.Go + ")"
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi := readBuildInfo()
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(bi)
			}
			fmt.Fprintln(cmd.OutOrStdout(), bi)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
