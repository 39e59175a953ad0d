package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/provider"
	"github.com/agentgate/agentgate/schemas"
)

func providerNames() string {
	names := make([]string, len(provider.Names))
	for i, n := range provider.Names {
		names[i] = string(n)
	}
	return strings.Join(names, "|")
}

func newSchemaExportCmd() *cobra.Command {
	var configDir, prov string
	var schemaOnly bool
	cmd := &cobra.Command{
		Use:   "export --provider " + providerNames() + " AGENT",
		Short: "Export an agent's output schema to a provider's strict mode",
		Long: `Rewrite the output schema of agent AGENT into the subset of JSON Schema that the
provider enforces while decoding (OpenAI Structured Outputs with strict: true;
Anthropic structured outputs and strict tool use), and print it as JSON with
a report of every keyword that could not be expressed there and is therefore
enforced by agentgate alone (the same document GET
/v1/agents/{name}/provider-schema answers). "request" is the part of the
provider's API request that carries the schema.

Outputs that come back in the exported shape (OpenAI: null for an optional
member) are mapped back by the gateway before validation and recorded as
normalizations.

Exit status: 0 when the provider accepts the export in strict mode, 1 when it
would refuse it ("strict": false), 2 on a usage or configuration error.`,
		Example: `  agentgate schema export --provider openai pr-reviewer
  agentgate schema export --provider anthropic --config config --schema-only incident-reporter`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := configRegistry(configDir)
			if err != nil {
				return exitCode{2, err}
			}
			bp, ok := reg.Blueprint(args[0])
			switch {
			case !ok:
				return exitCode{2, fmt.Errorf("no blueprint for agent %q", args[0])}
			case bp.OutputSchema == nil || bp.Reply != "":
				return exitCode{2, fmt.Errorf("agent %q has no output schema to export", args[0])}
			}
			x, err := provider.Export(provider.Name(prov), bp.OutputSchema.Doc, bp.OutputSchema)
			if err != nil {
				return exitCode{2, err}
			}
			var out any = provider.NewDocument(bp.Name, bp.OutputSchema.ID, x)
			if schemaOnly {
				out = x.Schema
			}
			if err := writeIndented(cmd.OutOrStdout(), out); err != nil {
				return exitCode{2, err}
			}
			if !x.Strict {
				return exitCode{1, fmt.Errorf("%s would refuse this schema in strict mode: see not_expressed", prov)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&prov, "provider", "", "the provider: "+providerNames()+" (required)")
	cmd.Flags().StringVar(&configDir, "config", "", "configuration folder (default: the bundled examples)")
	cmd.Flags().BoolVar(&schemaOnly, "schema-only", false, "print the exported schema alone")
	_ = cmd.MarkFlagRequired("provider")
	return cmd
}

// configRegistry loads dir, or the bundled examples when dir is "".
func configRegistry(dir string) (*schemas.Registry, error) {
	if dir == "" {
		return bundledRegistry()
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("loading configuration %s: %w", dir, err)
	}
	return reg, nil
}

// providerFindings adds to the lint report, as warnings, what provider p
// cannot express of each agent's output schema.
func providerFindings(dir, p string, r *schemas.LintReport) error {
	if _, err := provider.Export(provider.Name(p), nil, nil); err != nil {
		return err
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		// Lint has reported why already.
		return nil
	}
	for _, bp := range reg.Blueprints() {
		s := bp.OutputSchema
		if s == nil || bp.Reply != "" {
			continue
		}
		x, _ := provider.Export(provider.Name(p), s.Doc, s)
		file := s.Source
		if strings.HasPrefix(s.ID, schemas.InlinePrefix) {
			file = bp.Source
		}
		for _, f := range x.NotExpressed {
			r.Findings = append(r.Findings, schemas.Finding{
				File: file, Severity: schemas.SeverityWarning, Path: f.Path,
				Message: fmt.Sprintf("%s: %s %s for %s: %s", bp.Name, f.Keyword, f.Action, p, f.Message),
			})
		}
	}
	return nil
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
