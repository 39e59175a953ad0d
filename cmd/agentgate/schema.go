package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/schemas"
	"github.com/agentgate/agentgate/schemas/compat"
)

func newSchemaCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Check and compare schemas, and manage the running registry's",
	}
	cmd.AddCommand(newSchemaLintCmd(), newSchemaDiffCmd(),
		newSchemaPushCmd(), newSchemaVersionsCmd(), newSchemaGetCmd(), newSchemaCompatCmd(), newSchemaExportCmd())
	return cmd
}

func newSchemaLintCmd() *cobra.Command {
	var asJSON, strict bool
	var prov string
	cmd := &cobra.Command{
		Use:   "lint DIR",
		Short: "Check a configuration folder file by file",
		Long: `Check the configuration folder DIR (DIR/schemas/*.schema.json and DIR/agents/*.json)
as agentgate serve loads it, and report every problem file by file.

Errors are what makes agentgate serve refuse to start, with the same messages:
unparsable JSON, no $id or no semantic version in it, a duplicate $id, a schema
that fails its meta-schema, an unresolved $ref or one outside the registry, a
blueprint naming an unknown schema, an x-aliases entry that collides with a real
property or another alias, and the other blueprint mistakes.

Warnings are likely mistakes the gateway tolerates: a schema without title or
description; an object with no "additionalProperties": false under an agent whose
extra_fields is strip (nothing gets stripped); a oneOf whose branches are mutually
exclusive by construction (by type, by const/enum values, or by a required
discriminator property), where anyOf says the same; an enum whose strings differ
only in case.

With --provider openai|anthropic, each agent's output schema is also exported to
that provider's strict mode (see agentgate schema export), and every keyword the
provider cannot express is a warning.

Exit status: 0 when there is no error (warnings too with --strict), 1 otherwise,
2 when DIR cannot be read.`,
		Example: `  agentgate schema lint examples
  agentgate schema lint --json config
  agentgate schema lint --provider openai config`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			report, err := schemas.Lint(args[0])
			if err != nil {
				return exitCode{2, err}
			}
			if prov != "" {
				if err := providerFindings(args[0], prov, report); err != nil {
					return exitCode{2, err}
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				err = writeLintJSON(out, report)
			} else {
				err = writeLint(out, report)
			}
			if err != nil {
				return exitCode{2, err}
			}
			if report.Errors() > 0 || strict && report.Warnings() > 0 {
				return exitCode{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings too")
	cmd.Flags().StringVar(&prov, "provider", "", "also warn about what this provider's strict mode cannot express: "+providerNames())
	return cmd
}

// lintFiles lists the report's files, with those that only findings name.
func lintFiles(r *schemas.LintReport) []string {
	files := append([]string(nil), r.Files...)
	for _, f := range r.Findings {
		if !contains(files, f.File) {
			files = append(files, f.File)
		}
	}
	return files
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeLint prints the report for people: each file with its findings, or
// "ok", then the counts.
func writeLint(w io.Writer, r *schemas.LintReport) error {
	var b strings.Builder
	for _, file := range lintFiles(r) {
		findings := r.For(file)
		if len(findings) == 0 {
			fmt.Fprintf(&b, "%s: ok\n", file)
			continue
		}
		fmt.Fprintf(&b, "%s:\n", file)
		for _, f := range findings {
			if f.Path != "" {
				fmt.Fprintf(&b, "  %s: %s: %s\n", f.Severity, f.Path, f.Message)
			} else {
				fmt.Fprintf(&b, "  %s: %s\n", f.Severity, f.Message)
			}
		}
	}
	fmt.Fprintf(&b, "%s: %s, %s\n", plural(len(lintFiles(r)), "file"), plural(r.Errors(), "error"), plural(r.Warnings(), "warning"))
	_, err := io.WriteString(w, b.String())
	return err
}

// lintJSON is the --json form of a lint report.
type lintJSON struct {
	Files    []lintFileJSON `json:"files"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
}

type lintFileJSON struct {
	File     string            `json:"file"`
	Findings []schemas.Finding `json:"findings"`
}

func writeLintJSON(w io.Writer, r *schemas.LintReport) error {
	out := lintJSON{Files: []lintFileJSON{}, Errors: r.Errors(), Warnings: r.Warnings()}
	for _, file := range lintFiles(r) {
		findings := r.For(file)
		if findings == nil {
			findings = []schemas.Finding{}
		}
		out.Files = append(out.Files, lintFileJSON{File: file, Findings: findings})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func newSchemaDiffCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Classify the changes between two versions of a schema",
		Long: `Compare two versions of a schema file and classify every change as compatible or
breaking for the consumers of valid output. Breaking: an output that was valid may
now be refused, or a member consumers read may be gone (an added required member,
a removed property, a narrowed type or enum, a tightened bound, a closed object, an
added pattern or format). Compatible: everything that was valid stays valid (an
added optional member, a widened type, enum or bound, a dropped constraint). A
change whose effect cannot be told (a changed pattern, a changed "not", a
different $ref outside the document) counts as breaking. Local $refs are followed.

Exit status: 0 when no change is breaking, or when the semantic version ending the
$id is a major bump (below 1.0.0, a minor bump); 1 when a breaking change comes
without one; 2 when a file cannot be read or is not a schema.`,
		Example: `  agentgate schema diff schemas/pr-review-1.0.0.schema.json schemas/pr-review.schema.json
  agentgate schema diff --json old.schema.json new.schema.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			oldDoc, err := os.ReadFile(args[0])
			if err != nil {
				return exitCode{2, err}
			}
			newDoc, err := os.ReadFile(args[1])
			if err != nil {
				return exitCode{2, err}
			}
			report, err := compat.Compare(oldDoc, newDoc)
			if err != nil {
				return exitCode{2, err}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				err = writeDiffJSON(out, report)
			} else {
				err = writeDiff(out, report, args[0], args[1])
			}
			if err != nil {
				return exitCode{2, err}
			}
			if !report.OK() {
				return exitCode{1, errors.New(bumpAdvice(report))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// writeDiff prints the report for people: breaking changes first.
func writeDiff(w io.Writer, r *compat.Report, oldFile, newFile string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s\n", orName(r.OldID, oldFile), orName(r.NewID, newFile))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	breaking := 0
	for _, want := range []bool{true, false} {
		for _, c := range r.Changes {
			if c.Breaking != want {
				continue
			}
			kind := "compatible"
			if c.Breaking {
				kind = "breaking"
				breaking++
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", kind, c.Path, c.Keyword, c.Message)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "%s: %d breaking, %d compatible", plural(len(r.Changes), "change"), breaking, len(r.Changes)-breaking)
	switch {
	case breaking == 0:
		b.WriteString("\n")
	case r.MajorBump():
		fmt.Fprintf(&b, "; %s -> %s is a major bump\n", r.OldVersion, r.NewVersion)
	default:
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// diffJSON is the --json form of a diff report.
type diffJSON struct {
	*compat.Report
	Breaking  bool `json:"breaking"`
	MajorBump bool `json:"major_bump"`
	OK        bool `json:"ok"`
}

func writeDiffJSON(w io.Writer, r *compat.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(diffJSON{Report: r, Breaking: r.Breaking(), MajorBump: r.MajorBump(), OK: r.OK()})
}

// bumpAdvice says why the versions are not honest.
func bumpAdvice(r *compat.Report) string {
	if r.OldVersion == "" || r.NewVersion == "" {
		return "breaking changes, and no semantic version ending both $ids to tell a major bump"
	}
	return fmt.Sprintf("breaking changes need a major version bump: %s -> %s is not one", r.OldVersion, r.NewVersion)
}

func orName(id, file string) string {
	if id == "" {
		return file
	}
	return id
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
