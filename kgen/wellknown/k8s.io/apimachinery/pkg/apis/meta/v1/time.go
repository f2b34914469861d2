package v1

// Time is a Go time.Time that JSON and YAML carry as an RFC 3339 date and time in
// UTC, to the second; the zero time is written as null.
//
// +protobuf.options.marshal=false
// +protobuf.as=Timestamp
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +kgen:python=kgen.runtime.timeutil:Time
// +kgen:jsonType=string
type Time struct {
	// Seconds counts whole seconds since the Unix epoch, in UTC.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
	// Nanos is the part of a second past Seconds, in nanoseconds; never negative.
	Nanos int32 `json:"nanos" protobuf:"varint,2,opt,name=nanos"`
}

// MicroTime is Time kept to the microsecond instead of the second.
//
// +protobuf.options.marshal=false
// +protobuf.as=Timestamp
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +kgen:python=kgen.runtime.timeutil:MicroTime
// +kgen:jsonType=string
type MicroTime struct {
	// Seconds counts whole seconds since the Unix epoch, in UTC.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
	// Nanos is the part of a second past Seconds, in nanoseconds; never negative.
	Nanos int32 `json:"nanos" protobuf:"varint,2,opt,name=nanos"`
}

// Timestamp is the protobuf form of Time and MicroTime: an instant as seconds and
// nanoseconds since the Unix epoch. API types hold Time or MicroTime, not Timestamp.
type Timestamp struct {
	// seconds since 1970-01-01T00:00:00Z, for instants from year 1 to year 9999.
	Seconds int64 `json:"seconds" protobuf:"varint,1,opt,name=seconds"`
	// nanos is the fraction of the second, 0 to 999,999,999, counting forward in time
	// even when seconds is negative.
	Nanos int32 `json:"nanos" protobuf:"varint,2,opt,name=nanos"`
}

// Duration is a Go time.Duration that JSON and YAML carry as a string (such as
// "1h30m0s"), so that it can also serve as a JSON map key.
//
// +kgen:python=kgen.runtime.timeutil:Duration
// +kgen:jsonType=string
type Duration struct {
	Duration int64 `json:"duration" protobuf:"varint,1,opt,name=duration,casttype=time.Duration"`
}
