package lab

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDecodeAWSChunked: an aws-chunked upload with a trailing checksum (the
// AWS SDKs' default since 2025) reaches the S3 handler as the plain object
// with its Content-Length; a malformed one is refused; others pass as sent.
func TestDecodeAWSChunked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, sha, enc, decoded string
		status                        int
		want                          string
	}{
		{"unsigned trailer", "5\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n",
			"STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "11", 200, "hello world"},
		{"signed chunks", "5;chunk-signature=abc\r\nhello\r\n0;chunk-signature=def\r\nx-amz-checksum-crc32:x\r\n\r\n",
			"STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", "aws-chunked,gzip", "5", 200, "hello"},
		{"empty object", "0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n",
			"STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "0", 200, ""},
		{"length mismatch", "5\r\nhello\r\n0\r\n\r\n", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "6", 400, ""},
		{"bad size", "zz\r\nhello\r\n0\r\n\r\n", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "", 400, ""},
		{"plain upload", "raw body", "UNSIGNED-PAYLOAD", "", "", 200, "raw body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, gotLen, gotEnc string
			h := decodeAWSChunked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got, gotLen, gotEnc = string(b), r.Header.Get("Content-Length"), r.Header.Get("Content-Encoding")
			}))
			req := httptest.NewRequest("PUT", "/objbench/k", strings.NewReader(tc.body))
			req.Header.Set("X-Amz-Content-Sha256", tc.sha)
			if tc.enc != "" {
				req.Header.Set("Content-Encoding", tc.enc)
			}
			if tc.decoded != "" {
				req.Header.Set("X-Amz-Decoded-Content-Length", tc.decoded)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.status != 200 {
				return
			}
			if got != tc.want {
				t.Errorf("body %q, want %q", got, tc.want)
			}
			if tc.enc != "" && (gotLen != tc.decoded || strings.Contains(gotEnc, "aws-chunked")) {
				t.Errorf("Content-Length %q Content-Encoding %q, want %s and no aws-chunked", gotLen, gotEnc, tc.decoded)
			}
		})
	}
}
