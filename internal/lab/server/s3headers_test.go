package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestS3AnswersLikeS3 holds the lab's GET and HEAD answers to S3's: a
// checksum only for a whole object read with checksum mode, never with a
// range, and none of the PUT's own request headers.
func TestS3AnswersLikeS3(t *testing.T) {
	h, err := S3Handler("")
	if err != nil {
		t.Fatal(err)
	}
	defer h.(interface{ Close() error }).Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := bytes.Repeat([]byte("x"), 100000)
	put, _ := http.NewRequest(http.MethodPut, srv.URL+"/"+Bucket+"/ranged", bytes.NewReader(body))
	put.Header.Set("X-Amz-Checksum-Crc32", "/gcRcQ==")
	put.Header.Set("X-Amz-Sdk-Checksum-Algorithm", "CRC32")
	put.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	resp, err := http.DefaultClient.Do(put)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %s", resp.Status)
	}
	for _, tc := range []struct {
		name, method, rng, mode string
		checksum                bool
	}{
		{"whole object, checksum mode", http.MethodGet, "", "ENABLED", true},
		{"whole object, no mode", http.MethodGet, "", "", false},
		{"range, checksum mode", http.MethodGet, "bytes=0-99", "ENABLED", false},
		{"head, checksum mode", http.MethodHead, "", "ENABLED", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL+"/"+Bucket+"/ranged", nil)
			if tc.rng != "" {
				req.Header.Set("Range", tc.rng)
			}
			if tc.mode != "" {
				req.Header.Set("X-Amz-Checksum-Mode", tc.mode)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("X-Amz-Checksum-Crc32") != ""; got != tc.checksum {
				t.Errorf("checksum header present %v, want %v (%v)", got, tc.checksum, resp.Header)
			}
			for k := range resp.Header {
				for _, e := range echoedHeaders {
					if strings.EqualFold(k, e) {
						t.Errorf("answer echoes the PUT's %s", k)
					}
				}
			}
		})
	}
}
