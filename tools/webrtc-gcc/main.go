// SPDX-License-Identifier: GPL-2.0-only

// Command webrtc-gcc is the stand-in for a videoconferencing application
// (Skype, Hangout, Facetime in the Sprout paper): a synthetic video source
// whose rate is chosen by Google Congestion Control exactly as pion runs it
// in WebRTC (github.com/pion/interceptor: pkg/gcc's send-side estimator,
// delay-based and loss-based, with its leaky-bucket pacer; pkg/twcc's
// transport-wide sequence numbers and the receiver's transport-wide CC
// feedback). The rate control and the feedback are pion's; what is ours is
// only the plumbing: RTP and RTCP over one plain UDP socket each side (no
// ICE, DTLS or SRTP) and a source that emits one frame every 1/fps seconds
// of exactly target/fps bits (no codec: a real encoder overshoots and
// undershoots, and sends bigger key frames).
//
//	webrtc-gcc send --connect IP:PORT [--bind IP:PORT] --duration S --stats FILE
//	webrtc-gcc recv --listen IP:PORT --stats FILE
//
// Both write a JSON report (--stats) on exit, also when stopped by SIGTERM
// or SIGINT. The sender ends after --duration and tells the receiver with
// an RTCP BYE; the receiver ends on that BYE, after --idle-timeout without
// a packet, or on a signal. docs/webrtc.md has the whole story.
package main

import (
	"fmt"
	"os"
)

const usage = `webrtc-gcc: Google Congestion Control (pion's, as WebRTC runs it) driving a
synthetic video source over RTP/UDP, with transport-wide CC feedback.

usage:
  webrtc-gcc send --connect IP:PORT [options]   the video sender (GCC)
  webrtc-gcc recv --listen IP:PORT [options]    the receiver (TWCC feedback)

'webrtc-gcc send --help' and 'webrtc-gcc recv --help' list the options.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "send":
		err = runSender(os.Args[2:])
	case "recv":
		err = runReceiver(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "webrtc-gcc: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "webrtc-gcc %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
