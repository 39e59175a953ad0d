package router

import (
	"context"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill"
)

// wmLogLevels maps Watermill's levels to the gateway's: pkg/jetstream logs
// every message at Info, which is debugging detail here.
var wmLogLevels = map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug}

// levelGate is Watermill's slog adapter asking first whether a level is
// enabled. Watermill logs a few lines per message at trace and debug
// level, and its adapter turns their fields into attributes before slog
// drops them: about 1.5 % of the gateway's CPU in the bench's profile.
type levelGate struct {
	watermill.LoggerAdapter
	logger *slog.Logger
}

func newWatermillLogger(logger *slog.Logger) watermill.LoggerAdapter {
	logger = logger.With("component", "watermill")
	return levelGate{watermill.NewSlogLoggerWithLevelMapping(logger, wmLogLevels), logger}
}

func (l levelGate) enabled(level slog.Level) bool {
	if mapped, ok := wmLogLevels[level]; ok {
		level = mapped
	}
	return l.logger.Enabled(context.Background(), level)
}

// Info implements watermill.LoggerAdapter.
func (l levelGate) Info(msg string, fields watermill.LogFields) {
	if l.enabled(slog.LevelInfo) {
		l.LoggerAdapter.Info(msg, fields)
	}
}

// Debug implements watermill.LoggerAdapter.
func (l levelGate) Debug(msg string, fields watermill.LogFields) {
	if l.enabled(slog.LevelDebug) {
		l.LoggerAdapter.Debug(msg, fields)
	}
}

// Trace implements watermill.LoggerAdapter.
func (l levelGate) Trace(msg string, fields watermill.LogFields) {
	if l.enabled(watermill.LevelTrace) {
		l.LoggerAdapter.Trace(msg, fields)
	}
}

// With implements watermill.LoggerAdapter.
func (l levelGate) With(fields watermill.LogFields) watermill.LoggerAdapter {
	attrs := make([]any, 0, 2*len(fields))
	for k, v := range fields {
		attrs = append(attrs, k, v)
	}
	return levelGate{l.LoggerAdapter.With(fields), l.logger.With(attrs...)}
}
