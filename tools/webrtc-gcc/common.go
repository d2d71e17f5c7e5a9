// SPDX-License-Identifier: GPL-2.0-only

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/pion/interceptor"
)

// The stream both ends agree on, as an SDP offer/answer would have set it:
// one VP8-like video stream carrying the transport-wide CC extension.
const (
	ssrc           = 0x6763630a
	payloadType    = 96
	clockRate      = 90000
	transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
	transportCCID  = 5
	// A payload of 1200 bytes, as WebRTC's packetizers use: with the RTP
	// header and its extension a datagram stays well below the emulator's MTU.
	maxPayload = 1200
	// Bytes at the head of every payload: the frame's capture time, ns.
	stampLen = 8
)

func streamInfo() *interceptor.StreamInfo {
	return &interceptor.StreamInfo{
		SSRC:                ssrc,
		PayloadType:         payloadType,
		ClockRate:           clockRate,
		MimeType:            "video/VP8",
		RTPHeaderExtensions: []interceptor.RTPHeaderExtension{{URI: transportCCURI, ID: transportCCID}},
		RTCPFeedback:        []interceptor.RTCPFeedback{{Type: "transport-cc"}},
	}
}

// isRTCP tells RTCP from RTP on one socket (RFC 5761 §4: packet types
// 192-223 in the second byte are RTCP).
func isRTCP(b []byte) bool {
	return len(b) >= 2 && b[1] >= 192 && b[1] <= 223
}

// stopSignals is raised by SIGTERM and SIGINT: the endpoint still writes
// its report.
func stopSignals() chan os.Signal {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	return c
}

// writeJSON writes v whole or not at all: a temporary file, synced, renamed.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".webrtc-gcc-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.Write(append(b, '\n')); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Summary of a set of samples (ms or kbit/s), as the reports carry it.
type Summary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
}

func summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	at := func(q float64) float64 { return s[int(q*float64(len(s)-1)+0.5)] }
	return Summary{Count: len(s), Mean: sum / float64(len(s)), Min: s[0], P50: at(0.5), P95: at(0.95), Max: s[len(s)-1]}
}
