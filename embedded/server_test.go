package embedded_test

import (
	"errors"
	"testing"

	"github.com/agentgate/agentgate/embedded"
)

func TestStart_noAuthIsLoopbackOnly(t *testing.T) {
	tests := []struct {
		name    string
		given   embedded.Config
		wantErr error
	}{
		{"every interface without auth", embedded.Config{Listen: "0.0.0.0:0"}, embedded.ErrBadConfig},
		{"a LAN address without auth", embedded.Config{Listen: "10.1.2.3:4222"}, embedded.ErrBadConfig},
		{"an auth file that does not exist", embedded.Config{Listen: "127.0.0.1:0", AuthFile: "no/such.conf"}, embedded.ErrBadConfig},
		{"loopback without auth", embedded.Config{Listen: "127.0.0.1:0"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.given.StoreDir = t.TempDir()
			srv, err := embedded.Start(tt.given)
			if srv != nil {
				srv.Shutdown()
				srv.WaitForShutdown()
			}
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Start = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestConfig_Validate(t *testing.T) {
	t.Parallel()
	if _, err := embedded.Start(embedded.Config{Listen: "nowhere", StoreDir: ""}); err == nil {
		t.Fatal("bad config accepted")
	}
}
