// Package explain turns the lab's record of a program's connections and
// requests into an explanation: objects moved, requests, connections and
// handshakes per object, round trips per object by phase, the time spent
// not talking to storage, findings with what to change and what it would
// save, and the cost at list prices. Pure functions: it measures nothing.
package explain

import (
	"net/http"
	"net/url"
	"strings"
)

// Op is what one request was, in its API's terms.
type Op struct {
	// Name is the API operation: GetObject, PutObject, UploadPart,
	// ResumableInitiate, PutBlock...
	Name string
	// Object is true when the request completes an object's upload or
	// download (what "per object" divides by).
	Object bool
	// Price is the price class it is billed as: put, get, head, list, delete.
	Price string
}

// Operation maps a request to its API operation. api is s3, gcs or azure;
// status decides whether a resumable chunk finished its upload.
func Operation(api, method, path, rawQuery string, h http.Header, status int) Op {
	q, _ := url.ParseQuery(rawQuery)
	switch api {
	case "gcs":
		return gcsOp(method, path, q, status)
	case "azure":
		return azureOp(method, path, q, h)
	}
	return s3Op(method, path, q, h)
}

func has(q url.Values, k string) bool { _, ok := q[k]; return ok }

// pathParts splits /bucket/key... into bucket and key ("" when absent).
func pathParts(path string) (string, string) {
	p := strings.TrimPrefix(path, "/")
	b, k, _ := strings.Cut(p, "/")
	return b, k
}

func s3Op(method, path string, q url.Values, h http.Header) Op {
	bucket, key := pathParts(path)
	switch {
	case bucket == "":
		return Op{Name: "ListBuckets", Price: "list"}
	case key == "":
		switch method {
		case http.MethodGet:
			switch {
			case q.Get("list-type") == "2":
				return Op{Name: "ListObjectsV2", Price: "list"}
			case has(q, "uploads"):
				return Op{Name: "ListMultipartUploads", Price: "list"}
			case has(q, "location"):
				return Op{Name: "GetBucketLocation", Price: "get"}
			case has(q, "versions"):
				return Op{Name: "ListObjectVersions", Price: "list"}
			case has(q, "session"): // a directory bucket's (S3 Express One Zone); "all other requests"
				return Op{Name: "CreateSession", Price: "get"}
			case len(q) > 0 && !has(q, "prefix") && !has(q, "delimiter") && !has(q, "marker") && !has(q, "max-keys") && !has(q, "encoding-type"):
				return Op{Name: "GetBucketConfig", Price: "get"}
			}
			return Op{Name: "ListObjects", Price: "list"}
		case http.MethodPut:
			return Op{Name: "CreateBucket", Price: "put"}
		case http.MethodHead:
			return Op{Name: "HeadBucket", Price: "head"}
		case http.MethodDelete:
			return Op{Name: "DeleteBucket", Price: "delete"}
		case http.MethodPost:
			if has(q, "delete") {
				return Op{Name: "DeleteObjects", Price: "put"}
			}
		}
		return Op{Name: method + " bucket", Price: "get"}
	}
	switch method {
	case http.MethodGet:
		if has(q, "uploadId") {
			return Op{Name: "ListParts", Price: "list"}
		}
		if has(q, "tagging") || has(q, "acl") || has(q, "attributes") {
			return Op{Name: "GetObjectMetadata", Price: "get"}
		}
		return Op{Name: "GetObject", Object: true, Price: "get"}
	case http.MethodHead:
		return Op{Name: "HeadObject", Price: "head"}
	case http.MethodPut:
		switch {
		case has(q, "uploadId") && h.Get("X-Amz-Copy-Source") != "":
			return Op{Name: "UploadPartCopy", Price: "put"}
		case has(q, "uploadId"):
			return Op{Name: "UploadPart", Price: "put"}
		case h.Get("X-Amz-Copy-Source") != "":
			return Op{Name: "CopyObject", Object: true, Price: "put"}
		case has(q, "tagging") || has(q, "acl"):
			return Op{Name: "PutObjectMetadata", Price: "put"}
		}
		return Op{Name: "PutObject", Object: true, Price: "put"}
	case http.MethodPost:
		switch {
		case has(q, "uploads"):
			return Op{Name: "CreateMultipartUpload", Price: "put"}
		case has(q, "uploadId"):
			return Op{Name: "CompleteMultipartUpload", Object: true, Price: "put"}
		}
		return Op{Name: "PostObject", Object: true, Price: "put"}
	case http.MethodDelete:
		if has(q, "uploadId") {
			return Op{Name: "AbortMultipartUpload", Price: "delete"}
		}
		return Op{Name: "DeleteObject", Price: "delete"}
	}
	return Op{Name: method + " object", Price: "get"}
}

// gcsOp maps the GCS JSON API (/storage/v1, /upload/storage/v1,
// /download/storage/v1) and the XML API (/bucket/object).
func gcsOp(method, path string, q url.Values, status int) Op {
	switch {
	case strings.HasPrefix(path, "/upload/storage/v1/b/"):
		if method == http.MethodPost {
			switch q.Get("uploadType") {
			case "resumable":
				return Op{Name: "ResumableInitiate", Price: "put"}
			case "multipart":
				return Op{Name: "InsertObject (multipart)", Object: true, Price: "put"}
			}
			return Op{Name: "InsertObject (media)", Object: true, Price: "put"}
		}
		if method == http.MethodPut || method == http.MethodPost {
			// A chunk; the one answered 200 or 201 finished the upload.
			if status == http.StatusOK || status == http.StatusCreated {
				return Op{Name: "ResumableChunk (final)", Object: true, Price: "put"}
			}
			return Op{Name: "ResumableChunk", Price: "put"}
		}
		if method == http.MethodDelete {
			return Op{Name: "ResumableCancel", Price: "delete"}
		}
	case strings.HasPrefix(path, "/download/storage/v1/b/"):
		return Op{Name: "GetObject (media)", Object: true, Price: "get"}
	case strings.HasPrefix(path, "/storage/v1/b"):
		rest := strings.Trim(strings.TrimPrefix(path, "/storage/v1/b"), "/")
		parts := strings.Split(rest, "/")
		switch {
		case rest == "":
			if method == http.MethodPost {
				return Op{Name: "CreateBucket", Price: "put"}
			}
			return Op{Name: "ListBuckets", Price: "list"}
		case len(parts) == 1:
			switch method {
			case http.MethodDelete:
				return Op{Name: "DeleteBucket", Price: "delete"}
			case http.MethodGet:
				return Op{Name: "GetBucket", Price: "get"}
			}
			return Op{Name: "UpdateBucket", Price: "put"}
		case len(parts) == 2 && parts[1] == "o":
			if method == http.MethodPost {
				return Op{Name: "InsertObject (media)", Object: true, Price: "put"}
			}
			return Op{Name: "ListObjects", Price: "list"}
		case len(parts) >= 3 && parts[1] == "o":
			if strings.Contains(rest, "/rewriteTo/") || strings.Contains(rest, "/copyTo/") {
				return Op{Name: "RewriteObject", Object: true, Price: "put"}
			}
			if strings.HasSuffix(rest, "/compose") {
				return Op{Name: "ComposeObject", Object: true, Price: "put"}
			}
			switch method {
			case http.MethodGet:
				if q.Get("alt") == "media" {
					return Op{Name: "GetObject (media)", Object: true, Price: "get"}
				}
				return Op{Name: "GetObjectMetadata", Price: "get"}
			case http.MethodDelete:
				return Op{Name: "DeleteObject", Price: "delete"}
			}
			return Op{Name: "PatchObject", Price: "put"}
		}
	}
	// The XML API: /bucket/object.
	bucket, key := pathParts(path)
	switch {
	case bucket == "":
		return Op{Name: "XML ListBuckets", Price: "list"}
	case key == "" && method == http.MethodGet:
		return Op{Name: "XML ListObjects", Price: "list"}
	case key == "":
		return Op{Name: "XML " + method + " bucket", Price: "put"}
	}
	switch method {
	case http.MethodGet:
		return Op{Name: "XML GetObject", Object: true, Price: "get"}
	case http.MethodHead:
		return Op{Name: "XML HeadObject", Price: "head"}
	case http.MethodPut:
		return Op{Name: "XML PutObject", Object: true, Price: "put"}
	case http.MethodDelete:
		return Op{Name: "XML DeleteObject", Price: "delete"}
	}
	return Op{Name: "XML " + method, Price: "put"}
}

// azureOp maps Azure Blob requests: /account/container/blob?comp=...
func azureOp(method, path string, q url.Values, h http.Header) Op {
	p := strings.TrimPrefix(path, "/")
	parts := strings.SplitN(p, "/", 3) // account, container, blob
	comp := q.Get("comp")
	container := len(parts) >= 2 && parts[1] != ""
	blob := len(parts) == 3 && parts[2] != ""
	switch {
	case !container:
		if comp == "list" {
			return Op{Name: "ListContainers", Price: "list"}
		}
		return Op{Name: "GetAccountInfo", Price: "get"}
	case !blob:
		switch {
		case comp == "list":
			return Op{Name: "ListBlobs", Price: "list"}
		case method == http.MethodPut:
			return Op{Name: "CreateContainer", Price: "put"}
		case method == http.MethodDelete:
			return Op{Name: "DeleteContainer", Price: "delete"}
		}
		return Op{Name: "GetContainerProperties", Price: "get"}
	}
	switch method {
	case http.MethodPut:
		switch comp {
		case "block":
			return Op{Name: "PutBlock", Price: "put"}
		case "blocklist":
			return Op{Name: "PutBlockList", Object: true, Price: "put"}
		case "":
			if h.Get("X-Ms-Copy-Source") != "" {
				return Op{Name: "CopyBlob", Object: true, Price: "put"}
			}
			return Op{Name: "PutBlob", Object: true, Price: "put"}
		}
		return Op{Name: "SetBlob" + comp, Price: "put"}
	case http.MethodGet:
		switch comp {
		case "blocklist":
			return Op{Name: "GetBlockList", Price: "get"}
		case "":
			return Op{Name: "GetBlob", Object: true, Price: "get"}
		}
		return Op{Name: "GetBlob" + comp, Price: "get"}
	case http.MethodHead:
		return Op{Name: "GetBlobProperties", Price: "head"}
	case http.MethodDelete:
		return Op{Name: "DeleteBlob", Price: "delete"}
	}
	return Op{Name: method + " blob", Price: "get"}
}
