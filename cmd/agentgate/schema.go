package main

import "github.com/spf13/cobra"

func newSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Check and compare schemas",
	}
}
