/*
 * utvm-build C runtime: framing of the RPC byte stream for a lossy serial link (UART).
 *
 * Frame: 0x7E, then escaped: header (bit 0 sequence number, bit 1 ACK), payload length (u8),
 * payload, CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, over header, length and payload; little
 * endian). 0x7E and 0x7D inside a frame are sent as 0x7D, byte ^ 0x20; a 0x7E always starts a new
 * frame (resynchronisation after noise). Stop-and-wait ARQ: every data frame is acknowledged by an
 * ACK frame with its sequence number and resent after ack_timeout_ms (doubled after each of the
 * first three resends: a slow peer is not flooded), at most max_retries times;
 * a duplicate (its ACK was lost) is acknowledged again and dropped. docs/rpc.md has the details.
 *
 * Link reset (header bit 2): the host starts every session with a RESET frame (payload: a nonce of
 * up to 8 bytes); the device sets both sequence numbers to 0, drops what it holds, answers RESET|ACK
 * with the same payload, and the read or write in progress fails (the server abandons the packet it
 * was in). After a (re)start the device sends RESET|ACK with no payload (TVMRpcFraming_Announce):
 * a host in the middle of a session learns that the device was reset.
 *
 * TVMRpcFraming_Write/Read have the signatures of TVMRpcWriteFunc/TVMRpcReadFunc: give them to
 * TVMRpcServer_Init in place of the raw UART callbacks. One framing instance per firmware.
 */
#ifndef TVM_RUNTIME_CRT_RPC_FRAMING_H_
#define TVM_RUNTIME_CRT_RPC_FRAMING_H_

#include <stddef.h>
#include <stdint.h>

#include <tvm/runtime/crt/error_codes.h>
#include <tvm/runtime/crt/rpc_server.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! Largest payload of one frame (1..255); RAM: twice this plus about 40 bytes. */
#ifndef TVM_CRT_RPC_FRAME_PAYLOAD
#define TVM_CRT_RPC_FRAME_PAYLOAD 128
#endif

#define TVM_CRT_RPC_FRAME_START 0x7EU
#define TVM_CRT_RPC_FRAME_ESCAPE 0x7DU
#define TVM_CRT_RPC_FRAME_ACK 0x02U
#define TVM_CRT_RPC_FRAME_RESET 0x04U

/*! \brief The raw link under the framing, and its retransmission policy. */
typedef struct {
  TVMRpcWriteFunc write;
  TVMRpcReadFunc read;
  void* io_context;
  uint32_t ack_timeout_ms; /*!< wait for an ACK this long before resending a frame */
  uint32_t max_retries;    /*!< resend a frame at most this often, then report a write error */
} TVMRpcFramingConfig;

/*! \brief Set up (and reset sequence numbers). \return kTvmErrorInvalidArgument for NULL callbacks. */
tvm_crt_error_t TVMRpcFraming_Init(const TVMRpcFramingConfig* config);

/*! \brief Send data in acknowledged frames (a TVMRpcWriteFunc; context is ignored). */
int32_t TVMRpcFraming_Write(void* context, const uint8_t* data, size_t size);

/*! \brief Receive payload bytes of good, new data frames (a TVMRpcReadFunc; context ignored). */
int32_t TVMRpcFraming_Read(void* context, uint8_t* data, size_t size, uint32_t timeout_ms);

/*! \brief Tell the host that the device (re)started: one RESET|ACK frame without payload. */
void TVMRpcFraming_Announce(void);

/*!
 * \brief Whether the last failed read or write failed because the host reset the link (a new
 * session begins: serve again); clears the flag. \return 1 or 0.
 */
uint32_t TVMRpcFraming_TakeReset(void);

/*! \brief CRC-16/CCITT-FALSE of data, continuing from crc (start with 0xFFFF). */
uint16_t TVMRpcFraming_Crc16(uint16_t crc, const uint8_t* data, size_t size);

/*!
 * \brief Encode one frame into out (for tests and host tools).
 * \return the frame's length, or 0 when it does not fit out_size (2 * (payload + 4) + 1 always does).
 */
size_t TVMRpcFraming_Encode(uint8_t header, const uint8_t* payload, uint8_t size, uint8_t* out,
                            size_t out_size);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_RPC_FRAMING_H_ */
