package router_test

import (
	"errors"
	"testing"

	"github.com/agentgate/agentgate/router"
)

func TestStartEmbedded_noAuthIsLoopbackOnly(t *testing.T) {
	tests := []struct {
		name    string
		given   router.EmbeddedConfig
		wantErr error
	}{
		{"every interface without auth", router.EmbeddedConfig{Listen: "0.0.0.0:0"}, router.ErrBadConfig},
		{"a LAN address without auth", router.EmbeddedConfig{Listen: "10.1.2.3:4222"}, router.ErrBadConfig},
		{"an auth file that does not exist", router.EmbeddedConfig{Listen: "127.0.0.1:0", AuthFile: "no/such.conf"}, router.ErrBadConfig},
		{"loopback without auth", router.EmbeddedConfig{Listen: "127.0.0.1:0"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.given.StoreDir = t.TempDir()
			srv, err := router.StartEmbedded(tt.given)
			if srv != nil {
				srv.Shutdown()
				srv.WaitForShutdown()
			}
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("StartEmbedded = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
