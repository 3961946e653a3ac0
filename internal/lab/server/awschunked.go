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

// maxAWSChunkedBody bounds a decoded aws-chunked body held in memory:
// a larger one, with its decoded length declared, is decoded as it is read
// (streamAWSChunked), so that the lab never holds a large upload.
const maxAWSChunkedBody = 1 << 20

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
		if n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64); err == nil && n > maxAWSChunkedBody {
			r.Body = &awsChunkedReader{br: bufio.NewReader(r.Body), body: r.Body, want: n}
			plainRequest(r, n)
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
		plainRequest(r, int64(len(body)))
		next.ServeHTTP(w, r)
	})
}

// plainRequest makes an aws-chunked request look like a plain upload of
// n bytes.
func plainRequest(r *http.Request, n int64) {
	r.ContentLength = n
	r.TransferEncoding = nil
	r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
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

// awsChunkedReader decodes an aws-chunked body as it is read: its reader
// gets the object's bytes, an error if they are not the declared length,
// and the body is read to its end (trailers, outer chunking) at EOF.
type awsChunkedReader struct {
	br   *bufio.Reader
	body io.ReadCloser
	want int64
	got  int64
	left int64 // of the current chunk
	err  error
}

func (a *awsChunkedReader) Read(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	if a.left == 0 {
		if a.got > 0 { // the CRLF after a chunk's data
			if crlf, err := a.br.ReadString('\n'); err != nil || strings.TrimRight(crlf, "\r\n") != "" {
				a.err = errors.New("lab: aws-chunked: chunk not followed by CRLF")
				return 0, a.err
			}
		}
		line, err := a.br.ReadString('\n')
		if err != nil {
			a.err = fmt.Errorf("lab: aws-chunked: chunk header: %w", err)
			return 0, a.err
		}
		sizeHex, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeHex), 16, 64)
		if err != nil || size < 0 {
			a.err = fmt.Errorf("lab: aws-chunked: chunk size %q", sizeHex)
			return 0, a.err
		}
		if size == 0 {
			for { // trailers, then an empty line (or the end of the body)
				line, err := a.br.ReadString('\n')
				if strings.TrimRight(line, "\r\n") == "" || err != nil {
					break
				}
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(a.br, 64<<10))
			a.err = io.EOF
			if a.got != a.want {
				a.err = fmt.Errorf("lab: aws-chunked: decoded %d bytes, X-Amz-Decoded-Content-Length says %d", a.got, a.want)
			}
			return 0, a.err
		}
		a.left = size
	}
	if int64(len(p)) > a.left {
		p = p[:a.left]
	}
	n, err := a.br.Read(p)
	a.left -= int64(n)
	a.got += int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		a.err = err
	}
	return n, err
}

func (a *awsChunkedReader) Close() error { return a.body.Close() }
