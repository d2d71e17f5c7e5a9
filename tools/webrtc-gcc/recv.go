// SPDX-License-Identifier: GPL-2.0-only

package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/twcc"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

// ReceiverReport is what `recv --stats` writes.
type ReceiverReport struct {
	Role             string  `json:"role"`
	Listen           string  `json:"listen"`
	Peer             string  `json:"peer"`
	EndedBy          string  `json:"ended_by"`
	DurationS        float64 `json:"duration_s"`
	PacketsReceived  uint64  `json:"packets_received"`
	BytesReceived    uint64  `json:"bytes_received"`
	FeedbackSent     uint64  `json:"feedback_sent"`
	MalformedDropped uint64  `json:"malformed_dropped"`
	// Sequence numbers never seen between the first and the last one.
	PacketsLost uint64  `json:"packets_lost"`
	GoodputMbps float64 `json:"goodput_mbps"`
	// A frame's capture at the sender to each of its packets' arrival
	// (both ends read one machine's clock): pacing, queueing, propagation.
	OneWayDelayMs Summary `json:"one_way_delay_ms"`
}

func runReceiver(args []string) error {
	fs := flag.NewFlagSet("webrtc-gcc recv", flag.ContinueOnError)
	listen := fs.String("listen", "", "IP:PORT to receive on (required)")
	idle := fs.Float64("idle-timeout", 60, "end after this many seconds without a packet")
	stats := fs.String("stats", "", "write the JSON report here")
	interval := fs.Duration("feedback-interval", 100*time.Millisecond, "transport-wide CC report interval (pion's default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *listen == "" {
		return errors.New("--listen IP:PORT is required")
	}
	if *idle <= 0 || *interval <= 0 {
		return fmt.Errorf("--idle-timeout and --feedback-interval must be > 0")
	}
	laddr, err := net.ResolveUDPAddr("udp4", *listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", *listen, err)
	}
	conn, err := net.ListenUDP("udp4", laddr)
	if err != nil {
		return fmt.Errorf("binding %s: %w", *listen, err)
	}
	defer conn.Close()
	_ = conn.SetReadBuffer(4 << 20)

	r := &receiver{conn: conn}
	twccf, err := twcc.NewSenderInterceptor(twcc.SendInterval(*interval))
	if err != nil {
		return err
	}
	reg := interceptor.Registry{}
	reg.Add(twccf)
	chain, err := reg.Build("webrtc-gcc")
	if err != nil {
		return err
	}
	// pion's TWCC interceptor records each packet's arrival as it is read
	// through the chain and writes a report every interval.
	chain.BindRTCPWriter(interceptor.RTCPWriterFunc(r.writeRTCP))
	in := chain.BindRemoteStream(streamInfo(), interceptor.RTPReaderFunc(r.current))

	rep := ReceiverReport{Role: "receiver", Listen: conn.LocalAddr().String()}
	rep.EndedBy = r.loop(in, stopSignals(), time.Duration(*idle*float64(time.Second)), &rep)
	cerr := chain.Close()
	rep.FeedbackSent = r.feedback.Load()
	if p := r.peer.Load(); p != nil {
		rep.Peer = p.String()
	}
	if *stats != "" {
		if err := writeJSON(*stats, rep); err != nil {
			return err
		}
	}
	return cerr
}

type receiver struct {
	conn     *net.UDPConn
	peer     atomic.Pointer[net.UDPAddr]
	feedback atomic.Uint64
	pkt      []byte // the datagram being handed to the chain
}

// current hands the datagram just read to the chain.
func (r *receiver) current(b []byte, a interceptor.Attributes) (int, interceptor.Attributes, error) {
	return copy(b, r.pkt), a, nil
}

// writeRTCP sends pion's transport-wide CC reports back to the sender.
func (r *receiver) writeRTCP(pkts []rtcp.Packet, _ interceptor.Attributes) (int, error) {
	peer := r.peer.Load()
	if peer == nil {
		return 0, nil
	}
	b, err := rtcp.Marshal(pkts)
	if err != nil {
		return 0, err
	}
	n, err := r.conn.WriteToUDP(b, peer)
	if err == nil {
		r.feedback.Add(1)
	}
	return n, nil
}

func (r *receiver) loop(in interceptor.RTPReader, stop chan os.Signal, idle time.Duration, rep *ReceiverReport) string {
	buf := make([]byte, 2048)
	through := make([]byte, 2048)
	var delays []float64
	var first, last time.Time
	var minSeq, maxSeq int64 = -1, -1
	var cycles int64
	var lastSeq uint16
	begun := time.Now()
	for {
		select {
		case <-stop:
			return r.finish(rep, "signal", delays, first, last, minSeq, maxSeq)
		default:
		}
		// Wake often enough to see a stop signal.
		_ = r.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, from, err := r.conn.ReadFromUDP(buf)
		now := time.Now()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				ref := last
				if ref.IsZero() {
					ref = begun
				}
				if now.Sub(ref) > idle {
					return r.finish(rep, "idle", delays, first, last, minSeq, maxSeq)
				}
				continue
			}
			return r.finish(rep, "error: "+err.Error(), delays, first, last, minSeq, maxSeq)
		}
		b := buf[:n]
		if isRTCP(b) {
			if pkts, err := rtcp.Unmarshal(b); err == nil {
				for _, p := range pkts {
					if bye, ok := p.(*rtcp.Goodbye); ok && len(bye.Sources) > 0 && bye.Sources[0] == ssrc {
						return r.finish(rep, "bye", delays, first, last, minSeq, maxSeq)
					}
				}
			}
			rep.MalformedDropped++
			continue
		}
		var p rtp.Packet
		if err := p.Unmarshal(b); err != nil || p.SSRC != ssrc || len(p.Payload) < stampLen {
			rep.MalformedDropped++
			continue
		}
		if r.peer.Load() == nil {
			r.peer.Store(from)
		}
		r.pkt = b
		if _, _, err := in.Read(through, nil); err != nil {
			rep.MalformedDropped++
			continue
		}
		if first.IsZero() {
			first = now
		}
		last = now
		rep.PacketsReceived++
		rep.BytesReceived += uint64(n)
		sent := int64(binary.BigEndian.Uint64(p.Payload))
		delays = append(delays, float64(now.UnixNano()-sent)/1e6)
		// The RTP sequence number, unwrapped.
		if minSeq >= 0 && p.SequenceNumber < lastSeq && lastSeq-p.SequenceNumber > 1<<15 {
			cycles++
		}
		lastSeq = p.SequenceNumber
		seq := cycles<<16 | int64(p.SequenceNumber)
		if minSeq < 0 || seq < minSeq {
			minSeq = seq
		}
		maxSeq = max(maxSeq, seq)
	}
}

func (r *receiver) finish(rep *ReceiverReport, by string, delays []float64, first, last time.Time, minSeq, maxSeq int64) string {
	if !first.IsZero() {
		rep.DurationS = last.Sub(first).Seconds()
		if rep.DurationS > 0 {
			rep.GoodputMbps = float64(rep.BytesReceived) * 8 / rep.DurationS / 1e6
		}
	}
	if maxSeq >= minSeq && minSeq >= 0 {
		if expect := uint64(maxSeq - minSeq + 1); expect > rep.PacketsReceived {
			rep.PacketsLost = expect - rep.PacketsReceived
		}
	}
	rep.OneWayDelayMs = summarize(delays)
	return by
}
