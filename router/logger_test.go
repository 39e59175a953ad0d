package router

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
)

func TestWatermillLogger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		level slog.Level
		want  []string // messages logged, in order
	}{
		{"info", slog.LevelInfo, []string{"error line"}},
		{"debug", slog.LevelDebug, []string{"info line", "debug line", "error line"}},
		{"trace", watermill.LevelTrace, []string{"info line", "debug line", "trace line", "error line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			l := newWatermillLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tt.level})))
			l = l.With(watermill.LogFields{"handler": "h1"})
			fields := watermill.LogFields{"uuid": "u1"}
			l.Info("info line", fields)
			l.Debug("debug line", fields)
			l.Trace("trace line", fields)
			l.Error("error line", errors.New("boom"), fields)
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("logged %d lines, want %d:\n%s", len(lines), len(tt.want), buf.String())
			}
			for i, line := range lines {
				for _, part := range []string{"msg=\"" + tt.want[i] + "\"", "component=watermill", "handler=h1", "uuid=u1"} {
					if !strings.Contains(line, part) {
						t.Errorf("line %q lacks %s", line, part)
					}
				}
			}
		})
	}
}
