package document

// Crossover is the object size above which run B finishes a download (or
// upload) sooner than run A, from fitted models total(size) = TTFB + size/rate.
type Crossover struct {
	Op         string  `json:"op"`
	A, B       string  `json:"-"` // run labels
	ARunID     string  `json:"a"`
	BRunID     string  `json:"b"`
	FitA, FitB Fit     `json:"-"`
	SizeBytes  float64 `json:"size_bytes"` // 0 or negative: no crossover in range
	// Faster is the label of the run that is faster above SizeBytes.
	Faster string `json:"faster"`
}

// Fit is a latency model total_ms(size) = TTFBms + size/(MBps·10^6)·1000.
type Fit struct {
	TTFBms float64 `json:"ttfb_ms"`
	MBps   float64 `json:"mb_per_s"`
	// Points are the (size, p50 total ms) the fit was made from.
	Points [][2]float64 `json:"points"`
}
