package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgate/agentgate/registry"
)

const apiHelp = `
It calls the HTTP API of a running gateway (--api, default ` + defaultAPI + `) with the
bearer token --api-token (or AGENTGATE_API_TOKEN) when given. Exit status: 0 on success, 1 when the registry refuses
or does not know it (the reasons are printed), 2 for bad arguments or an unreadable
file, 3 when the gateway cannot be reached or fails.`

// jsonOr prints the API's answer raw with --json, else calls human.
func jsonOr(cmd *cobra.Command, body []byte, err error, human func() error) error {
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON && len(body) > 0 {
		printJSON(cmd.OutOrStdout(), body)
		if err != nil {
			var ec exitCode
			if errors.As(err, &ec) {
				return exitCode{code: ec.code} // the JSON says why
			}
		}
		return err
	}
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON && err == nil {
		return nil
	}
	if err != nil {
		return err
	}
	return human()
}

func newSchemaPushCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push FILE|DIR",
		Short: "Register schemas (and a folder's blueprints) with the running registry",
		Long: `Register the schema in FILE, or every DIR/schemas/*.schema.json (or DIR/*.schema.json)
and then every DIR/agents/*.json blueprint, with the running registry: a configuration
folder applied as a change. Schemas go in version order, each checked against the
versions before it under its name's compatibility level; a version already registered
with the same document is left alone. Every file is tried; each refusal is printed.` + apiHelp,
		Example: `  agentgate schema push examples/schemas/pr-review.schema.json
  agentgate schema push examples
  agentgate schema push --json --api http://gw:8080 config`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			schemaFiles, agentFiles, err := pushFiles(args[0])
			if err != nil {
				return exitCode{exitUsage, err}
			}
			c := newAPIClient(cmd)
			type result struct {
				File   string          `json:"file"`
				Status string          `json:"status"` // registered, unchanged, applied, refused
				Answer json.RawMessage `json:"answer,omitempty"`
			}
			var results []result
			worst := 0
			record := func(file, ok string, status int, body []byte, err error) {
				r := result{File: file, Status: ok, Answer: json.RawMessage(body)}
				if status == 200 && ok == "registered" {
					r.Status = "unchanged"
				}
				if err != nil {
					var ec exitCode
					if errors.As(err, &ec) {
						worst = max(worst, ec.code)
					}
					if ec.code == exitUnreachable && len(body) == 0 {
						r.Answer, _ = json.Marshal(map[string]string{"error": "unreachable", "message": err.Error()})
					}
					r.Status = "refused"
					if !json.Valid(r.Answer) {
						r.Answer, _ = json.Marshal(map[string]string{"error": "error", "message": err.Error()})
					}
				}
				results = append(results, r)
				if asJSON, _ := cmd.Flags().GetBool("json"); !asJSON {
					if err != nil {
						fmt.Fprintf(cmd.OutOrStdout(), "%s: refused: %v\n", file, err)
					} else {
						fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", file, r.Status)
					}
				}
			}
			for _, f := range schemaFiles {
				status, body, err := c.do(cmd.Context(), "POST", "/v1/schemas/"+url.PathEscape(f.name)+"/versions", f.doc)
				record(f.path, "registered", status, body, err)
			}
			for _, f := range agentFiles {
				status, body, err := c.do(cmd.Context(), "PUT", "/v1/agents/"+url.PathEscape(f.name), f.doc)
				record(f.path, "applied", status, body, err)
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON {
				b, _ := json.Marshal(results)
				printJSON(cmd.OutOrStdout(), b)
			}
			if worst != 0 {
				return exitCode{code: worst}
			}
			return nil
		},
	}
	addAPIFlags(cmd)
	return cmd
}

// pushFile is a document to push.
type pushFile struct {
	path    string
	name    string // schema name or agent name
	version string
	doc     []byte
}

// pushFiles reads what push sends: schemas in name and version order, then
// blueprints in name order.
func pushFiles(arg string) (schemaFiles, agentFiles []pushFile, err error) {
	info, err := os.Stat(arg)
	if err != nil {
		return nil, nil, err
	}
	var schemaPaths, agentPaths []string
	if !info.IsDir() {
		schemaPaths = []string{arg}
	} else {
		schemaPaths = configSchemaFiles(filepath.Join(arg, "schemas"))
		if len(schemaPaths) == 0 {
			schemaPaths = configSchemaFiles(arg)
		}
		agentPaths, _ = filepath.Glob(filepath.Join(arg, "agents", "*.json"))
		if len(schemaPaths)+len(agentPaths) == 0 {
			return nil, nil, fmt.Errorf("%s holds no schemas/*.schema.json or *.jtd.json, *.schema.json, *.jtd.json or agents/*.json", arg)
		}
	}
	var errs []error
	for _, p := range schemaPaths {
		doc, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id, err := registry.SchemaID(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			continue
		}
		name, version, err := registry.SplitID(id)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			continue
		}
		schemaFiles = append(schemaFiles, pushFile{path: p, name: name, version: version, doc: doc})
	}
	for _, p := range agentPaths {
		doc, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var head struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(doc, &head); err != nil || head.Name == "" {
			errs = append(errs, fmt.Errorf("%s: not a blueprint with a name", p))
			continue
		}
		agentFiles = append(agentFiles, pushFile{path: p, name: head.Name, doc: doc})
	}
	slices.SortFunc(schemaFiles, func(a, b pushFile) int {
		return cmp.Or(strings.Compare(a.name, b.name), registry.CompareVersions(a.version, b.version))
	})
	slices.SortFunc(agentFiles, func(a, b pushFile) int { return strings.Compare(a.name, b.name) })
	return schemaFiles, agentFiles, errors.Join(errs...)
}

func newSchemaVersionsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "versions NAME",
		Short: "List the registered versions of a schema name",
		Long: `List the versions of the schema NAME (its $id without the version segment, or a full
$id, whose version is then ignored) with its compatibility level.` + apiHelp,
		Example: `  agentgate schema versions https://agentgate.dev/schemas/pr-review`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if n, _, err := registry.SplitID(name); err == nil {
				name = n
			}
			_, body, err := newAPIClient(cmd).do(cmd.Context(), "GET", "/v1/schemas/"+url.PathEscape(name)+"/versions", nil)
			return jsonOr(cmd, body, err, func() error {
				var ans struct {
					Name, Compatibility string
					Versions            []struct {
						Version, ID, Origin string
						RegisteredAt        string `json:"registered_at"`
					}
				}
				if err := json.Unmarshal(body, &ans); err != nil {
					return exitCode{exitUnreachable, fmt.Errorf("decoding the answer: %w", err)}
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "%s (compatibility %s)\n", ans.Name, ans.Compatibility)
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "VERSION\tORIGIN\tREGISTERED\tID")
				for _, v := range ans.Versions {
					at := v.RegisteredAt
					if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
						at = t.UTC().Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Version, v.Origin, at, v.ID)
				}
				return tw.Flush()
			})
		},
	}
	addAPIFlags(cmd)
	return cmd
}

func newSchemaGetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get ID | NAME [VERSION]",
		Short: "Print a registered schema",
		Long: `Print the schema document with the full $id ID, or version VERSION (default latest)
of the schema NAME. With --json, print the version record (version, id, origin,
registered_at, schema).` + apiHelp,
		Example: `  agentgate schema get https://agentgate.dev/schemas/pr-review/1.0.0
  agentgate schema get https://agentgate.dev/schemas/pr-review latest`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, version := args[0], "latest"
			if len(args) == 2 {
				version = args[1]
			} else if n, v, err := registry.SplitID(args[0]); err == nil {
				name, version = n, v
			}
			_, body, err := newAPIClient(cmd).do(cmd.Context(), "GET",
				"/v1/schemas/"+url.PathEscape(name)+"/versions/"+url.PathEscape(version), nil)
			return jsonOr(cmd, body, err, func() error {
				var ans struct {
					Schema json.RawMessage `json:"schema"`
				}
				if err := json.Unmarshal(body, &ans); err != nil {
					return exitCode{exitUnreachable, fmt.Errorf("decoding the answer: %w", err)}
				}
				printJSON(cmd.OutOrStdout(), ans.Schema)
				return nil
			})
		},
	}
	addAPIFlags(cmd)
	return cmd
}

func newSchemaCompatCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compat FILE",
		Short: "Would the running registry accept this schema? (dry run)",
		Long: `Ask the running registry whether it would register the schema in FILE: the same
checks as push (the document loads, its version is new and above the others of its
line, no breaking change under the name's compatibility level without a major bump),
with nothing stored. Exit status 1 when it would be refused.` + apiHelp,
		Example: `  agentgate schema compat pr-review-1.1.0.schema.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, _, err := pushFiles(args[0])
			if err != nil || len(files) != 1 {
				return exitCode{exitUsage, fmt.Errorf("%s: want one schema file: %w", args[0], err)}
			}
			f := files[0]
			_, body, err := newAPIClient(cmd).do(cmd.Context(), "POST", "/v1/schemas/"+url.PathEscape(f.name)+"/compatibility", f.doc)
			var ans struct {
				Compatible bool `json:"compatible"`
				apiError
			}
			if err == nil {
				if jerr := json.Unmarshal(body, &ans); jerr != nil {
					return exitCode{exitUnreachable, fmt.Errorf("decoding the answer: %w", jerr)}
				}
			}
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON && err == nil && !ans.Compatible {
				printJSON(cmd.OutOrStdout(), body)
				return exitCode{code: exitRefused}
			}
			return jsonOr(cmd, body, err, func() error {
				out := cmd.OutOrStdout()
				if !ans.Compatible {
					fmt.Fprintf(out, "%s: would be refused: %s (%s)\n", f.path, ans.Message, ans.Code)
					for _, d := range ans.Details {
						fmt.Fprintln(out, "  - "+detailLine(d))
					}
					return exitCode{code: exitRefused}
				}
				fmt.Fprintf(out, "%s: %s %s would be registered\n", f.path, f.name, f.version)
				return nil
			})
		},
	}
	addAPIFlags(cmd)
	return cmd
}

func newAgentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Manage the blueprints of the running registry",
	}
	apply := &cobra.Command{
		Use:   "apply FILE",
		Short: "Create or replace an agent's blueprint",
		Long: `Create or replace the blueprint in FILE (contract section 5), checked exactly as at
start-up. Runs already started keep the blueprint revision they began with; new runs
get this one.` + apiHelp,
		Example: `  agentgate agent apply examples/agents/pr-reviewer.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := os.ReadFile(args[0])
			if err != nil {
				return exitCode{exitUsage, err}
			}
			var head struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(doc, &head); err != nil || head.Name == "" {
				return exitCode{exitUsage, fmt.Errorf("%s: not a blueprint with a name", args[0])}
			}
			status, body, err := newAPIClient(cmd).do(cmd.Context(), "PUT", "/v1/agents/"+url.PathEscape(head.Name), doc)
			return jsonOr(cmd, body, err, func() error {
				var ans struct{ Revision uint64 }
				_ = json.Unmarshal(body, &ans)
				verb := "updated"
				if status == 201 {
					verb = "created"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "agent %s %s (revision %d)\n", head.Name, verb, ans.Revision)
				return nil
			})
		},
	}
	get := &cobra.Command{
		Use:   "get NAME",
		Short: "Print an agent's blueprint in force",
		Long:  `Print the blueprint of agent NAME as the gateway applies it (defaults filled in).` + apiHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, body, err := newAPIClient(cmd).do(cmd.Context(), "GET", "/v1/agents/"+url.PathEscape(args[0]), nil)
			return jsonOr(cmd, body, err, func() error {
				printJSON(cmd.OutOrStdout(), body)
				return nil
			})
		},
	}
	del := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete an agent's blueprint",
		Long: `Delete the blueprint of agent NAME. Its history stays in the bucket, so runs begun
under it finish under it; new outputs for the agent need a Schema-Id header.` + apiHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, body, err := newAPIClient(cmd).do(cmd.Context(), "DELETE", "/v1/agents/"+url.PathEscape(args[0]), nil)
			return jsonOr(cmd, body, err, func() error {
				fmt.Fprintf(cmd.OutOrStdout(), "agent %s deleted\n", args[0])
				return nil
			})
		},
	}
	for _, c := range []*cobra.Command{apply, get, del} {
		addAPIFlags(c)
		cmd.AddCommand(c)
	}
	return cmd
}

// configSchemaFiles lists dir's schema files: JSON Schemas (*.schema.json) and
// JSON Type Definitions (*.jtd.json), as a --config folder holds them.
func configSchemaFiles(dir string) []string {
	js, _ := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	jtd, _ := filepath.Glob(filepath.Join(dir, "*.jtd.json"))
	return append(js, jtd...)
}
