package contract

import (
	"encoding/base64"
	"regexp"
	"strings"
)

var plainKey = regexp.MustCompile(`^[-_=A-Za-z0-9]+(\.[-_=A-Za-z0-9]+)*$`)

// encodedKeyPrefix marks a key that holds a base64url-encoded run id.
const encodedKeyPrefix = "b64_"

// RunKey is a run's key in the run-state bucket: the run id itself when it
// is a valid key, otherwise its base64url encoding behind a prefix (which
// ids that happen to start with the prefix also get, so no two runs share
// a key).
func RunKey(runID string) string {
	if plainKey.MatchString(runID) && !strings.HasPrefix(runID, encodedKeyPrefix) {
		return runID
	}
	return encodedKeyPrefix + base64.RawURLEncoding.EncodeToString([]byte(runID))
}
