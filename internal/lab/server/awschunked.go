package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxAWSChunkedBody bounds a decoded aws-chunked body held in memory (the
// lab's objects live in memory anyway).
const maxAWSChunkedBody = 1 << 30

// decodeAWSChunked lets the lab's S3 server accept uploads in the
// aws-chunked encoding with a trailing checksum, which the AWS SDKs send by
// default since their 2025 releases (boto3 1.36, JavaScript v3.729) over
// HTTPS: Transfer-Encoding chunked, Content-Encoding aws-chunked, no
// Content-Length. Amazon S3 accepts them; gofakes3 wants a Content-Length,
// so the body is decoded here into the plain object and the request looks
// like an ordinary PutObject or UploadPart. Other requests pass unchanged.
func decodeAWSChunked(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sha := r.Header.Get("X-Amz-Content-Sha256")
		if !strings.Contains(r.Header.Get("Content-Encoding"), "aws-chunked") ||
			!strings.HasSuffix(sha, "-TRAILER") && sha != "STREAMING-UNSIGNED-PAYLOAD" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := readAWSChunked(io.LimitReader(r.Body, maxAWSChunkedBody))
		// Read the request body to its end (the outer chunked encoding's
		// last chunk): net/http closes a connection whose Expect:
		// 100-continue body was not read to EOF before the response.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 64<<10))
		if err == nil && r.Header.Get("X-Amz-Decoded-Content-Length") != "" &&
			r.Header.Get("X-Amz-Decoded-Content-Length") != strconv.Itoa(len(body)) {
			err = fmt.Errorf("decoded %d bytes, X-Amz-Decoded-Content-Length says %s",
				len(body), r.Header.Get("X-Amz-Decoded-Content-Length"))
		}
		if err != nil {
			http.Error(w, "lab: bad aws-chunked body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.TransferEncoding = nil
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		var enc []string
		for _, e := range strings.Split(r.Header.Get("Content-Encoding"), ",") {
			if e = strings.TrimSpace(e); e != "" && e != "aws-chunked" {
				enc = append(enc, e)
			}
		}
		if len(enc) == 0 {
			r.Header.Del("Content-Encoding")
		} else {
			r.Header.Set("Content-Encoding", strings.Join(enc, ","))
		}
		next.ServeHTTP(w, r)
	})
}

// readAWSChunked decodes "SIZE-HEX[;chunk-signature=…]\r\nDATA\r\n" chunks
// up to the zero-size one, then skips the trailer lines (the checksums).
func readAWSChunked(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(r)
	var out bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("chunk header: %w", err)
		}
		sizeHex, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeHex), 16, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("chunk size %q", sizeHex)
		}
		if size == 0 {
			break
		}
		if _, err := io.CopyN(&out, br, size); err != nil {
			return nil, fmt.Errorf("chunk data: %w", err)
		}
		if crlf, err := br.ReadString('\n'); err != nil || strings.TrimRight(crlf, "\r\n") != "" {
			return nil, errors.New("chunk not followed by CRLF")
		}
	}
	for { // trailers, then an empty line (or the end of the body)
		line, err := br.ReadString('\n')
		if strings.TrimRight(line, "\r\n") == "" || err != nil {
			return out.Bytes(), nil
		}
	}
}
