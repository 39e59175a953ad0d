package apiauth_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/apiauth"
)

// BenchmarkLookup: every lookup compares against all tokens, so its cost
// grows with the file, not with which token matches.
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{2, 100} {
		var file strings.Builder
		for i := range n {
			fmt.Fprintf(&file, "read token-%020d\n", i)
		}
		tokens, err := apiauth.Parse([]byte(file.String()))
		if err != nil {
			b.Fatal(err)
		}
		for _, which := range []string{"first", "none"} {
			token := fmt.Sprintf("token-%020d", 0)
			if which == "none" {
				token = "token-not-in-the-file-000"
			}
			b.Run(fmt.Sprintf("tokens=%d/%s", n, which), func(b *testing.B) {
				for b.Loop() {
					tokens.Lookup(token)
				}
			})
		}
	}
}
