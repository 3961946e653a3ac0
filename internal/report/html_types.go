package report

// HTMLInput is what `objbench report` renders into one self-contained page.
type HTMLInput struct {
	Title string
	// Generated is when the page was made, shown as given.
	Generated string
	Runs      []HTMLRun
	// Crossovers found by compare between runs of two targets (optional).
	Crossovers []Crossover
}

// HTMLRun is one saved run: a `run` document and/or a `strategies` document.
type HTMLRun struct {
	ID    string
	Label string // short legend name, e.g. "s3 lab:cross-region" or a --label value
	// Doc is the objbench/v1 document of `objbench run` (nil for other commands).
	Doc *Document
	// Strategies is the document of `objbench strategies` (nil otherwise).
	Strategies *StrategiesDocument
	// Startup is the document of `objbench startup` (nil otherwise).
	Startup *StartupDocument
	// Meta is the run metadata shown in the page (command, host, versions, options, labels).
	Meta map[string]string
	// Quantiles are read from the stored histograms, by index in
	// Doc.Results; a step without them is plotted from its percentiles.
	Quantiles map[int]StepQuantiles
}

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
