package router

import "testing"

func TestPullBatch(t *testing.T) {
	for _, tt := range []struct{ maxAckPending, workers, want int }{
		{256, 64, 4},  // the defaults on 2 cores: 4 each fill MaxAckPending
		{256, 8, 4},   // at most 4 behind a busy subscription
		{256, 128, 2}, // the default from 4 cores: as before
		{256, 256, 2},
		{10, 64, 2}, // never 1: a pull request per output
	} {
		if got := pullBatch(tt.maxAckPending, tt.workers); got != tt.want {
			t.Errorf("pullBatch(%d, %d) = %d, want %d", tt.maxAckPending, tt.workers, got, tt.want)
		}
	}
}
