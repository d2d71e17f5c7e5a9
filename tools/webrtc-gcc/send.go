// SPDX-License-Identifier: GPL-2.0-only

package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/cc"
	"github.com/pion/interceptor/pkg/gcc"
	"github.com/pion/interceptor/pkg/twcc"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

// SenderReport is what `send --stats` writes.
type SenderReport struct {
	Role             string  `json:"role"`
	Connect          string  `json:"connect"`
	Local            string  `json:"local"`
	FPS              int     `json:"fps"`
	InitialKbps      int     `json:"initial_kbps"`
	MinKbps          int     `json:"min_kbps"`
	MaxKbps          int     `json:"max_kbps"`
	DurationS        float64 `json:"duration_s"`
	EndedBy          string  `json:"ended_by"`
	FramesSent       uint64  `json:"frames_sent"`
	PacketsSent      uint64  `json:"packets_sent"`
	BytesSent        uint64  `json:"bytes_sent"`
	FeedbackReceived uint64  `json:"feedback_received"`
	MalformedDropped uint64  `json:"malformed_dropped"`
	SendErrors       uint64  `json:"send_errors"`
	// GCC's target, sampled every 100 ms while sending.
	TargetKbps Summary `json:"target_kbps"`
	FinalKbps  float64 `json:"final_kbps"`
	// [seconds since the first frame, target kbit/s], every 100 ms.
	Timeline [][2]float64 `json:"timeline"`
	// pion's own view at the end (GetStats: loss and delay estimates).
	GCCStats map[string]any `json:"gcc_stats"`
}

func runSender(args []string) error {
	fs := flag.NewFlagSet("webrtc-gcc send", flag.ContinueOnError)
	connect := fs.String("connect", "", "the receiver's IP:PORT (required)")
	bind := fs.String("bind", "", "local IP:PORT to send from (default: any)")
	duration := fs.Float64("duration", 30, "seconds of video, then an RTCP BYE")
	startIn := fs.Float64("start-in", 0, "seconds to wait before the first frame")
	stats := fs.String("stats", "", "write the JSON report here")
	fps := fs.Int("fps", 30, "frames per second of the synthetic source")
	initial := fs.Int("initial-kbps", 300, "GCC's start rate, kbit/s (libwebrtc's default start is 300)")
	minK := fs.Int("min-kbps", 30, "GCC's floor, kbit/s (libwebrtc's default minimum is 30)")
	maxK := fs.Int("max-kbps", 2500, "GCC's ceiling, kbit/s: the encoder's top rate (libwebrtc's VP8 720p maximum is 2500)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *connect == "":
		return errors.New("--connect IP:PORT is required")
	case *duration <= 0 || *startIn < 0:
		return fmt.Errorf("--duration must be > 0 and --start-in >= 0 (got %v, %v)", *duration, *startIn)
	case *fps < 1 || *fps > 240:
		return fmt.Errorf("--fps must be in 1..=240 (got %d)", *fps)
	case *minK < 5 || *minK > *initial || *initial > *maxK || *maxK > 50_000:
		return fmt.Errorf("need 5 <= --min-kbps <= --initial-kbps <= --max-kbps <= 50000 (got %d, %d, %d)", *minK, *initial, *maxK)
	}
	raddr, err := net.ResolveUDPAddr("udp4", *connect)
	if err != nil {
		return fmt.Errorf("--connect %s: %w", *connect, err)
	}
	var laddr *net.UDPAddr
	if *bind != "" {
		if laddr, err = net.ResolveUDPAddr("udp4", *bind); err != nil {
			return fmt.Errorf("--bind %s: %w", *bind, err)
		}
	}
	conn, err := net.DialUDP("udp4", laddr, raddr)
	if err != nil {
		return fmt.Errorf("socket to %s: %w", *connect, err)
	}
	defer conn.Close()

	rep := SenderReport{Role: "sender", Connect: raddr.String(), Local: conn.LocalAddr().String(),
		FPS: *fps, InitialKbps: *initial, MinKbps: *minK, MaxKbps: *maxK}
	s, err := newSender(conn, *initial, *minK, *maxK)
	if err != nil {
		return err
	}
	stop := stopSignals()
	rep.EndedBy = s.run(stop, time.Duration(*startIn*float64(time.Second)),
		time.Duration(*duration*float64(time.Second)), *fps, &rep)
	if err := s.close(); err != nil {
		return err
	}
	rep.FramesSent = s.frames
	rep.PacketsSent = s.packets.Load()
	rep.BytesSent = s.bytes.Load()
	rep.FeedbackReceived = s.feedback.Load()
	rep.MalformedDropped = s.malformed.Load()
	rep.SendErrors = s.sendErrors.Load()
	if *stats != "" {
		return writeJSON(*stats, rep)
	}
	return nil
}

// sender is the interceptor chain pion's WebRTC stack would build for one
// video track with GCC: the transport-wide sequence numbers are stamped
// first, then GCC's pacer queues the packet and, when it leaves, records
// it for the feedback adapter and hands it to our socket writer.
type sender struct {
	conn  *net.UDPConn
	chain interceptor.Interceptor
	bwe   cc.BandwidthEstimator
	out   interceptor.RTPWriter
	rtcpR interceptor.RTCPReader
	done  sync.WaitGroup

	frames                                          uint64
	packets, bytes, feedback, malformed, sendErrors atomic.Uint64
}

func newSender(conn *net.UDPConn, initialKbps, minKbps, maxKbps int) (*sender, error) {
	s := &sender{conn: conn}
	ccf, err := cc.NewInterceptor(func() (cc.BandwidthEstimator, error) {
		return gcc.NewSendSideBWE(
			gcc.SendSideBWEInitialBitrate(initialKbps*1000),
			gcc.SendSideBWEMinBitrate(minKbps*1000),
			gcc.SendSideBWEMaxBitrate(maxKbps*1000),
		)
	})
	if err != nil {
		return nil, err
	}
	ccf.OnNewPeerConnection(func(_ string, e cc.BandwidthEstimator) { s.bwe = e })
	hdr, err := twcc.NewHeaderExtensionInterceptor()
	if err != nil {
		return nil, err
	}
	// pion/webrtc's order: the CC interceptor, then the TWCC header
	// extension (the last added wraps the others, so it stamps first).
	reg := interceptor.Registry{}
	reg.Add(ccf)
	reg.Add(hdr)
	if s.chain, err = reg.Build("webrtc-gcc"); err != nil {
		return nil, err
	}
	if s.bwe == nil {
		return nil, errors.New("pion's CC interceptor made no bandwidth estimator")
	}
	s.out = s.chain.BindLocalStream(streamInfo(), interceptor.RTPWriterFunc(s.writeRTP))
	s.rtcpR = s.chain.BindRTCPReader(interceptor.RTCPReaderFunc(s.readRTCP))
	s.done.Add(1)
	go s.feedbackLoop()
	return s, nil
}

// writeRTP is the bottom of the chain: the paced packet onto the wire.
func (s *sender) writeRTP(h *rtp.Header, payload []byte, _ interceptor.Attributes) (int, error) {
	pkt := rtp.Packet{Header: *h, Payload: payload}
	b, err := pkt.Marshal()
	if err != nil {
		return 0, err
	}
	n, err := s.conn.Write(b)
	if err != nil {
		// A full socket buffer or a refused port (receiver not up yet):
		// the packet is lost, as a real sender's would be.
		s.sendErrors.Add(1)
		return 0, nil
	}
	s.packets.Add(1)
	s.bytes.Add(uint64(n))
	return n, nil
}

// readRTCP is the bottom of the RTCP read side: one datagram from the
// socket; anything not RTCP is counted and skipped.
func (s *sender) readRTCP(b []byte, a interceptor.Attributes) (int, interceptor.Attributes, error) {
	for {
		n, err := s.conn.Read(b)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && !ne.Timeout() && !errors.Is(err, net.ErrClosed) {
				continue // ECONNREFUSED before the receiver is up
			}
			return 0, a, err
		}
		if _, perr := rtcp.Unmarshal(b[:n]); perr != nil || !isRTCP(b[:n]) {
			s.malformed.Add(1)
			continue
		}
		s.feedback.Add(1)
		return n, a, nil
	}
}

// feedbackLoop pulls RTCP through the chain: pion's CC interceptor parses
// each transport-wide CC report and feeds GCC.
func (s *sender) feedbackLoop() {
	defer s.done.Done()
	buf := make([]byte, 1500)
	for {
		if _, _, err := s.rtcpR.Read(buf, nil); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// GCC refused a report (e.g. after Close): keep reading.
			if errors.Is(err, gcc.ErrSendSideBWEClosed) {
				return
			}
		}
	}
}

// run sends frames until the duration is over or a stop signal comes.
func (s *sender) run(stop chan os.Signal, startIn, duration time.Duration, fps int, rep *SenderReport) string {
	select {
	case <-stop:
		return "signal"
	case <-time.After(startIn):
	}
	start := time.Now()
	frameEvery := time.Second / time.Duration(fps)
	frames := time.NewTicker(frameEvery)
	defer frames.Stop()
	samples := time.NewTicker(100 * time.Millisecond)
	defer samples.Stop()
	end := time.NewTimer(duration)
	defer end.Stop()
	var targets []float64
	payload := make([]byte, maxPayload)
	var seq uint16
	endedBy := "duration"
loop:
	for {
		select {
		case <-stop:
			endedBy = "signal"
			break loop
		case <-end.C:
			break loop
		case now := <-samples.C:
			k := float64(s.bwe.GetTargetBitrate()) / 1000
			targets = append(targets, k)
			rep.Timeline = append(rep.Timeline, [2]float64{now.Sub(start).Seconds(), k})
		case now := <-frames.C:
			// One frame of exactly target/fps bits, cut into packets of at
			// most maxPayload bytes; the last carries the marker bit.
			frameBytes := s.bwe.GetTargetBitrate() / 8 / fps
			frameBytes = max(frameBytes, stampLen)
			ts := uint32(now.Sub(start).Seconds() * clockRate)
			binary.BigEndian.PutUint64(payload, uint64(now.UnixNano()))
			for left := frameBytes; left > 0; {
				n := min(left, maxPayload)
				left -= n
				h := rtp.Header{Version: 2, PayloadType: payloadType, SequenceNumber: seq,
					Timestamp: ts, SSRC: ssrc, Marker: left == 0}
				seq++
				if _, err := s.out.Write(&h, payload[:max(n, stampLen)], nil); err != nil {
					s.sendErrors.Add(1)
				}
			}
			s.frames++
		}
	}
	rep.DurationS = time.Since(start).Seconds()
	rep.TargetKbps = summarize(targets)
	rep.FinalKbps = float64(s.bwe.GetTargetBitrate()) / 1000
	rep.GCCStats = s.bwe.GetStats()
	return endedBy
}

// close says BYE (three times: the link may drop one) and takes the chain down.
func (s *sender) close() error {
	bye, _ := rtcp.Marshal([]rtcp.Packet{&rtcp.Goodbye{Sources: []uint32{ssrc}, Reason: "end"}})
	for i := 0; i < 3; i++ {
		_, _ = s.conn.Write(bye)
		time.Sleep(20 * time.Millisecond)
	}
	err := s.chain.Close()
	_ = s.conn.Close()
	s.done.Wait()
	return err
}
