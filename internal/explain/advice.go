package explain

import (
	"fmt"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// adviceText is, for each kind of fix, what to change in each library, in
// its own terms ("" the generic text, for a library not recognised).
var adviceText = map[string]map[string]string{
	"adaptive": adaptiveText, // throttle.go
	"client": {
		"boto3":                "boto3: call boto3.client('s3') once, outside the loop, and pass the client on",
		"aws-sdk-js":           "JS SDK: create one S3Client at module scope and share it",
		"aws-sdk-go-v2":        "Go SDK: call s3.NewFromConfig once and share the *s3.Client",
		"google-cloud-storage": "google-cloud-storage: make one storage.Client() and keep its bucket",
		"azure-storage-blob":   "azure-storage-blob: make one BlobServiceClient and take get_blob_client from it",
		"go-net/http":          "Go: share one http.Client (its Transport holds the pool)",
		"":                     "one client object, made once and shared",
	},
	"pool": {
		"boto3":                "boto3: Config(max_pool_connections=N) at least the threads, default 10",
		"aws-sdk-js":           "JS SDK: requestHandler: {httpsAgent: {maxSockets: N}} at least the requests in flight",
		"aws-sdk-go-v2":        "Go SDK: an http transport with MaxIdleConnsPerHost at least the goroutines (awshttp.NewBuildableClient().WithTransportOptions)",
		"google-cloud-storage": "google-cloud-storage: a requests HTTPAdapter with pool_maxsize at least the threads",
		"azure-storage-blob":   "azure-storage-blob: a transport whose session pool holds as many connections as threads",
		"go-net/http":          "Go: http.Transport.MaxIdleConnsPerHost, default 2, at least the goroutines",
		"":                     "the pool's idle limit at least the requests in flight",
	},
	"head": {
		"boto3":                "boto3: drop head_object; get_object returns ContentLength, ETag and Metadata and raises NoSuchKey for a missing key",
		"aws-sdk-js":           "JS SDK: drop HeadObjectCommand; GetObjectCommand's output has ContentLength, ETag and Metadata, and a missing key throws NoSuchKey",
		"aws-sdk-go-v2":        "Go SDK: drop HeadObject; GetObjectOutput has ContentLength, ETag and Metadata, and a missing key is a *types.NoSuchKey",
		"google-cloud-storage": "google-cloud-storage: drop blob.exists() and blob.reload(); download_as_bytes() raises NotFound and fills the blob's properties",
		"azure-storage-blob":   "azure-storage-blob: drop exists() and get_blob_properties(); download_blob() carries the properties and raises ResourceNotFoundError",
		"":                     "drop the metadata request: the GET's response has the same headers",
	},
	"list-head": {
		"boto3":                "boto3: read Size, ETag and LastModified from list_objects_v2's Contents instead of head_object per key",
		"aws-sdk-js":           "JS SDK: read Size, ETag and LastModified from ListObjectsV2Command's Contents instead of HeadObjectCommand per key",
		"aws-sdk-go-v2":        "Go SDK: read Size, ETag and LastModified from ListObjectsV2's Contents instead of HeadObject per key",
		"google-cloud-storage": "google-cloud-storage: list_blobs() returns blobs with their size and md5; no reload() per blob",
		"azure-storage-blob":   "azure-storage-blob: list_blobs() yields BlobProperties; no get_blob_properties() per blob",
		"":                     "use the listing's size and ETag instead of a metadata request per object",
	},
	"list-per-object": {
		"boto3":                "boto3: list once (a paginator over list_objects_v2) and look keys up in a set, or get_object and catch NoSuchKey",
		"aws-sdk-js":           "JS SDK: list once (paginateListObjectsV2) and look keys up in a Set, or GetObjectCommand and catch NoSuchKey",
		"aws-sdk-go-v2":        "Go SDK: list once (s3.NewListObjectsV2Paginator) and look keys up in a map, or GetObject and check for *types.NoSuchKey",
		"google-cloud-storage": "google-cloud-storage: one list_blobs() into a set, or download and catch NotFound",
		"azure-storage-blob":   "azure-storage-blob: one list_blobs() into a set, or download_blob() and catch ResourceNotFoundError",
		"":                     "list once and look each key up locally",
	},
	"get-after-put": {
		"boto3":                "boto3: keep the bytes you uploaded; put_object's ETag (and ChecksumCRC32) already confirms what was stored",
		"aws-sdk-js":           "JS SDK: keep the body you sent; PutObjectCommand's ETag and checksum confirm what was stored",
		"aws-sdk-go-v2":        "Go SDK: keep the body you sent; PutObjectOutput's ETag and checksum confirm what was stored",
		"google-cloud-storage": "google-cloud-storage: keep the data; after upload the blob's md5_hash and crc32c confirm what was stored",
		"azure-storage-blob":   "azure-storage-blob: keep the data; upload_blob() returns the etag and content_md5",
		"":                     "keep what was uploaded; the upload's answer confirms it",
	},
	"reread": {
		"": "read each object once and keep its bytes (a dict, Map or map keyed by the key, or an LRU cache)",
	},
	"bucket": {
		"boto3":                "boto3: call head_bucket/create_bucket once at start-up, not before every upload",
		"aws-sdk-js":           "JS SDK: send HeadBucketCommand/CreateBucketCommand once at start-up, not before every upload",
		"aws-sdk-go-v2":        "Go SDK: call HeadBucket/CreateBucket once at start-up, not before every upload",
		"google-cloud-storage": "google-cloud-storage: client.bucket(name) makes no request; call get_bucket()/create_bucket() once, not per upload",
		"azure-storage-blob":   "azure-storage-blob: create_container() once at start-up, not per upload",
		"":                     "check or create the bucket once, not per object",
	},
	"multipart": {
		"boto3":                "boto3: leave TransferConfig's multipart_threshold at its 8 MiB default (or call put_object) for small files",
		"aws-sdk-js":           "JS SDK: PutObjectCommand for small bodies; @aws-sdk/lib-storage's Upload only above its part size",
		"aws-sdk-go-v2":        "Go SDK: PutObject for small bodies; the transfer manager's Uploader only above its PartSize",
		"google-cloud-storage": "google-cloud-storage: leave blob.chunk_size unset below 8 MiB, or upload_from_string",
		"azure-storage-blob":   "azure-storage-blob: max_single_put_size above the object size (upload_blob then sends one Put Blob)",
		"":                     "one request for a small object",
	},
	"range": {
		"boto3":                "boto3: one get_object without Range (or download_file, whose parts are 8 MiB)",
		"aws-sdk-js":           "JS SDK: one GetObjectCommand without Range, or ranges of several MiB",
		"aws-sdk-go-v2":        "Go SDK: one GetObject without Range, or the transfer manager's Downloader (5 MiB parts)",
		"google-cloud-storage": "google-cloud-storage: download_as_bytes() without start/end, or blob.open() with a large chunk_size",
		"azure-storage-blob":   "azure-storage-blob: download_blob() without offset/length, or max_chunk_get_size of several MiB",
		"":                     "read the object in one GET, or in ranges of several MiB",
	},
	"checksum": {
		"boto3":                "boto3: Config(request_checksum_calculation='when_required') (or AWS_REQUEST_CHECKSUM_CALCULATION=when_required)",
		"aws-sdk-js":           "JS SDK: new S3Client({requestChecksumCalculation: 'WHEN_REQUIRED'})",
		"aws-sdk-go-v2":        "Go SDK: o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired",
		"google-cloud-storage": "google-cloud-storage: upload_from_*(checksum=None) where the transport's integrity is enough",
		"azure-storage-blob":   "azure-storage-blob: validate_content=False (its default)",
		"":                     "turn the SDK's default checksum off for large bodies where TLS's integrity is enough",
	},
}

// advice is what to change for a fix of kind in the library the
// connections (indexes) used; every library's when they used several or
// none that is known.
func (f *facts) advice(kind string, conns []int) string {
	texts := adviceText[kind]
	libs := map[string]bool{}
	for _, ci := range conns {
		libs[f.e.Conns[ci].Library] = true
	}
	if len(conns) == 0 {
		for _, c := range f.e.Conns {
			libs[c.Library] = true
		}
	}
	if len(libs) == 1 {
		for l := range libs {
			if t, ok := texts[l]; ok {
				return t
			}
		}
	}
	return texts[""]
}

// connsOfRequests are the connections (indexes) the requests (ids) went on.
func (f *facts) connsOfRequests(ids []string) []int {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []int
	for ci, c := range f.e.Conns {
		for _, r := range c.Requests {
			if want[r.ID] {
				out = append(out, ci)
				break
			}
		}
	}
	return out
}

// confident gives fd its confidence: shown by its connections and
// requests; low when the rule says so or a priced saving is under one round
// trip (within the timeline's noise). A low one says so in its text; one
// the model cannot price says that in its text already.
func (f *facts) confident(fd document.Finding, low bool, falseIf string, priced bool) document.Finding {
	var shown []string
	for _, id := range fd.Conns {
		shown = append(shown, fmt.Sprintf("conn %d", id))
	}
	shown = append(shown, fd.Requests...)
	if priced && fd.Evidence["save_s"] < f.rtt {
		low = true
	}
	level := "high"
	if low {
		level = "low"
		ids := shown
		if len(ids) > 6 {
			ids = append(ids[:5:5], fmt.Sprintf("... (%d in all)", len(shown)))
		}
		fd.Text += fmt.Sprintf(" (Low confidence: shown only by %s; false if %s.)", strings.Join(ids, ", "), falseIf)
	}
	if shown == nil {
		shown = []string{}
	}
	fd.Confidence = &document.Confidence{Level: level, Shown: shown, FalseIf: falseIf, Priced: priced}
	return fd
}
