/*
 * utvm-build C runtime: framing of the RPC byte stream for a lossy serial link (see rpc_framing.h).
 * Static state, no allocation; the receive buffer holds one frame, the delivered payload waits in a
 * second buffer until the RPC server has read it, and frames are sent through a 16-byte buffer.
 */
#include <tvm/runtime/crt/rpc_framing.h>

#if (TVM_CRT_RPC_FRAME_PAYLOAD < 1) || (TVM_CRT_RPC_FRAME_PAYLOAD > 255)
#error "TVM_CRT_RPC_FRAME_PAYLOAD must be 1..255"
#endif

#define FRAME_OVERHEAD 4U /* header, length, CRC */
#define RESET_NONCE_MAX 8U

static TVMRpcFramingConfig g_link;
static uint8_t g_link_ok = 0U;

/* Receiver: one frame being collected (unescaped). */
static uint8_t g_rx[(uint32_t)TVM_CRT_RPC_FRAME_PAYLOAD + FRAME_OVERHEAD];
static uint32_t g_rx_len = 0U;
static uint8_t g_rx_in_frame = 0U;
static uint8_t g_rx_escaped = 0U;
static uint8_t g_rx_expected = 0U; /* sequence number of the next new data frame */
static uint8_t g_reset = 0U;       /* the host reset the link: fail the read/write in progress */
static uint8_t g_reset_seen = 0U;  /* ... and tell TVMRpcFraming_TakeReset */

/* Payload delivered to the reader. */
static uint8_t g_pending[TVM_CRT_RPC_FRAME_PAYLOAD];
static uint32_t g_pending_len = 0U;
static uint32_t g_pending_pos = 0U;

/* Sender. */
static uint8_t g_tx_seq = 0U;
static uint8_t g_stage[16];
static uint32_t g_stage_len = 0U;
static uint8_t g_tx_failed = 0U;
static uint8_t* g_encode_out = NULL; /* TVMRpcFraming_Encode: bytes go here instead of the link */
static size_t g_encode_size = 0U;
static size_t g_encode_len = 0U;

uint16_t TVMRpcFraming_Crc16(uint16_t crc, const uint8_t* data, size_t size) {
  uint16_t c = crc;
  size_t i;
  uint32_t bit;
  for (i = 0U; i < size; ++i) {
    c ^= (uint16_t)((uint16_t)data[i] << 8U);
    for (bit = 0U; bit < 8U; ++bit) {
      if ((c & 0x8000U) != 0U) {
        c = (uint16_t)((uint16_t)(c << 1U) ^ 0x1021U);
      } else {
        c = (uint16_t)(c << 1U);
      }
    }
  }
  return c;
}

/* ---- sending ---- */

static void StageFlush(void) {
  uint32_t done = 0U;
  while ((done < g_stage_len) && (g_tx_failed == 0U)) {
    const int32_t n = g_link.write(g_link.io_context, &g_stage[done], (size_t)(g_stage_len - done));
    if ((n <= 0) || ((uint32_t)n > (g_stage_len - done))) {
      g_tx_failed = 1U;
    } else {
      done += (uint32_t)n;
    }
  }
  g_stage_len = 0U;
}

static void EmitRaw(uint8_t byte) {
  if (g_encode_out != NULL) {
    if (g_encode_len < g_encode_size) {
      g_encode_out[g_encode_len] = byte;
    }
    ++g_encode_len;
  } else {
    if (g_stage_len >= (uint32_t)sizeof(g_stage)) {
      StageFlush();
    }
    g_stage[g_stage_len] = byte;
    ++g_stage_len;
  }
}

static void EmitEscaped(uint8_t byte) {
  if ((byte == (uint8_t)TVM_CRT_RPC_FRAME_START) || (byte == (uint8_t)TVM_CRT_RPC_FRAME_ESCAPE)) {
    EmitRaw((uint8_t)TVM_CRT_RPC_FRAME_ESCAPE);
    EmitRaw((uint8_t)(byte ^ 0x20U));
  } else {
    EmitRaw(byte);
  }
}

static void EmitFrame(uint8_t header, const uint8_t* payload, uint8_t size) {
  uint8_t head[2];
  uint16_t crc;
  uint32_t i;
  head[0] = header;
  head[1] = size;
  crc = TVMRpcFraming_Crc16(0xFFFFU, head, 2U);
  crc = TVMRpcFraming_Crc16(crc, payload, (size_t)size);
  EmitRaw((uint8_t)TVM_CRT_RPC_FRAME_START);
  EmitEscaped(header);
  EmitEscaped(size);
  for (i = 0U; i < (uint32_t)size; ++i) {
    EmitEscaped(payload[i]);
  }
  EmitEscaped((uint8_t)(crc & 0xFFU));
  EmitEscaped((uint8_t)(crc >> 8U));
}

size_t TVMRpcFraming_Encode(uint8_t header, const uint8_t* payload, uint8_t size, uint8_t* out,
                            size_t out_size) {
  size_t result = 0U;
  if ((out != NULL) && ((payload != NULL) || (size == 0U))) {
    g_encode_out = out;
    g_encode_size = out_size;
    g_encode_len = 0U;
    EmitFrame(header, payload, size);
    result = (g_encode_len <= out_size) ? g_encode_len : 0U;
    g_encode_out = NULL;
  }
  return result;
}

static void SendFrame(uint8_t header, const uint8_t* payload, uint8_t size) {
  EmitFrame(header, payload, size);
  StageFlush();
}

/* ---- receiving ---- */

/* Feed one raw byte; 1 when g_rx holds a complete frame with a good CRC. */
static uint32_t RxByte(uint8_t byte) {
  uint32_t complete = 0U;
  if (byte == (uint8_t)TVM_CRT_RPC_FRAME_START) {
    g_rx_in_frame = 1U; /* also resynchronises after a broken frame */
    g_rx_len = 0U;
    g_rx_escaped = 0U;
  } else if (g_rx_in_frame == 0U) {
    /* noise between frames */
  } else if (byte == (uint8_t)TVM_CRT_RPC_FRAME_ESCAPE) {
    g_rx_escaped = 1U;
  } else {
    const uint8_t b = (g_rx_escaped != 0U) ? (uint8_t)(byte ^ 0x20U) : byte;
    g_rx_escaped = 0U;
    if (g_rx_len >= (uint32_t)sizeof(g_rx)) {
      g_rx_in_frame = 0U; /* longer than any frame: drop */
    } else {
      g_rx[g_rx_len] = b;
      ++g_rx_len;
      if ((g_rx_len >= 2U) && (g_rx_len == ((uint32_t)g_rx[1] + FRAME_OVERHEAD))) {
        const uint16_t crc = TVMRpcFraming_Crc16(0xFFFFU, g_rx, (size_t)(g_rx_len - 2U));
        g_rx_in_frame = 0U;
        if ((g_rx[g_rx_len - 2U] == (uint8_t)(crc & 0xFFU)) &&
            (g_rx[g_rx_len - 1U] == (uint8_t)(crc >> 8U)) && ((g_rx[0] & 0xF8U) == 0U)) {
          complete = 1U;
        }
      }
    }
  }
  return complete;
}

/* A good frame in g_rx. Data frames are acknowledged; a new one is kept for the reader (unless the
 * reader still has bytes: then it is dropped unacknowledged and comes again). Returns 1 when the
 * frame is what the caller waits for: an ACK of seq (waiting_ack != 0; a new data frame counts as
 * one: the host sends data only after it has received everything we sent) or new data. */
static uint32_t OnFrame(uint8_t waiting_ack, uint8_t seq) {
  const uint8_t header = g_rx[0];
  const uint8_t frame_seq = (uint8_t)(header & 1U);
  uint32_t event = 0U;
  if ((header & (uint8_t)TVM_CRT_RPC_FRAME_RESET) != 0U) {
    if (((header & (uint8_t)TVM_CRT_RPC_FRAME_ACK) == 0U) && ((uint32_t)g_rx[1] <= RESET_NONCE_MAX)) {
      g_rx_expected = 0U;
      g_tx_seq = 0U;
      g_pending_len = 0U;
      g_pending_pos = 0U;
      g_reset = 1U;
      g_reset_seen = 1U;
      SendFrame((uint8_t)(TVM_CRT_RPC_FRAME_RESET | TVM_CRT_RPC_FRAME_ACK), &g_rx[2], g_rx[1]);
    }
  } else if ((header & (uint8_t)TVM_CRT_RPC_FRAME_ACK) != 0U) {
    if ((waiting_ack != 0U) && (frame_seq == seq)) {
      event = 1U;
    }
  } else if (frame_seq != g_rx_expected) {
    SendFrame((uint8_t)(TVM_CRT_RPC_FRAME_ACK | frame_seq), NULL, 0U); /* duplicate: ACK lost */
  } else if (g_pending_pos < g_pending_len) {
    /* the reader is not done with the previous payload */
  } else {
    uint32_t i;
    for (i = 0U; i < (uint32_t)g_rx[1]; ++i) {
      g_pending[i] = g_rx[2U + i];
    }
    g_pending_len = (uint32_t)g_rx[1];
    g_pending_pos = 0U;
    g_rx_expected ^= 1U;
    SendFrame((uint8_t)(TVM_CRT_RPC_FRAME_ACK | frame_seq), NULL, 0U);
    event = 1U;
  }
  return event;
}

/* Read raw bytes until the awaited event; 1 event, 0 timeout, -1 link closed or reset by the host. */
static int32_t Await(uint32_t timeout_ms, uint8_t waiting_ack, uint8_t seq) {
  uint8_t raw[16];
  int32_t result = 2;
  g_reset = 0U;
  while (result == 2) {
    const int32_t n = g_link.read(g_link.io_context, raw, sizeof(raw), timeout_ms);
    if (n == 0) {
      result = 0;
    } else if ((n < 0) || ((size_t)n > sizeof(raw))) {
      result = -1;
    } else {
      int32_t i;
      for (i = 0; i < n; ++i) {
        if ((RxByte(raw[i]) != 0U) && (OnFrame(waiting_ack, seq) != 0U)) {
          result = 1; /* the remaining bytes are still fed to the receiver */
        }
      }
      if (g_reset != 0U) {
        result = -1; /* a new session: what was in progress is abandoned */
      }
    }
  }
  return result;
}

/* ---- API ---- */

tvm_crt_error_t TVMRpcFraming_Init(const TVMRpcFramingConfig* config) {
  tvm_crt_error_t err = kTvmErrorInvalidArgument;
  g_link_ok = 0U;
  if ((config != NULL) && (config->write != NULL) && (config->read != NULL)) {
    g_link = *config;
    g_rx_len = 0U;
    g_rx_in_frame = 0U;
    g_rx_escaped = 0U;
    g_rx_expected = 0U;
    g_pending_len = 0U;
    g_pending_pos = 0U;
    g_tx_seq = 0U;
    g_stage_len = 0U;
    g_reset = 0U;
    g_reset_seen = 0U;
    g_link_ok = 1U;
    err = kTvmErrorNoError;
  }
  return err;
}

void TVMRpcFraming_Announce(void) {
  if (g_link_ok != 0U) {
    g_tx_failed = 0U;
    SendFrame((uint8_t)(TVM_CRT_RPC_FRAME_RESET | TVM_CRT_RPC_FRAME_ACK), NULL, 0U);
  }
}

uint32_t TVMRpcFraming_TakeReset(void) {
  const uint32_t seen = (uint32_t)g_reset_seen;
  g_reset_seen = 0U;
  return seen;
}

int32_t TVMRpcFraming_Write(void* context, const uint8_t* data, size_t size) {
  size_t off = 0U;
  int32_t result = -1;
  (void)context;
  g_tx_failed = (g_link_ok == 0U) ? 1U : 0U;
  while ((off < size) && (g_tx_failed == 0U)) {
    const size_t left = size - off;
    const uint8_t n = (left < (size_t)TVM_CRT_RPC_FRAME_PAYLOAD) ? (uint8_t)left
                                                               : (uint8_t)TVM_CRT_RPC_FRAME_PAYLOAD;
    uint32_t attempt = 0U;
    int32_t acked = 0;
    while ((acked != 1) && (g_tx_failed == 0U)) {
      if (attempt > g_link.max_retries) {
        g_tx_failed = 1U;
      } else {
        /* back off on a slow peer: 1, 2, 4, then 8 times ack_timeout_ms */
        const uint32_t shift = (attempt < 3U) ? attempt : 3U;
        const uint32_t wait = (g_link.ack_timeout_ms > (0xFFFFFFFFU >> 3U))
                                  ? g_link.ack_timeout_ms
                                  : (g_link.ack_timeout_ms << shift);
        SendFrame(g_tx_seq, &data[off], n);
        acked = Await(wait, 1U, g_tx_seq);
        if (acked < 0) {
          g_tx_failed = 1U;
        }
        ++attempt;
      }
    }
    if (g_tx_failed == 0U) {
      g_tx_seq ^= 1U;
      off += (size_t)n;
    }
  }
  if ((g_tx_failed == 0U) && (size <= 0x7FFFFFFFU)) {
    result = (int32_t)size;
  }
  return result;
}

int32_t TVMRpcFraming_Read(void* context, uint8_t* data, size_t size, uint32_t timeout_ms) {
  int32_t result = 1;
  (void)context;
  if (g_link_ok == 0U) {
    result = -1;
  }
  while ((result == 1) && (g_pending_pos >= g_pending_len)) {
    result = Await(timeout_ms, 0U, 0U);
  }
  if (result == 1) {
    uint32_t n = 0U;
    while ((n < (uint32_t)size) && (g_pending_pos < g_pending_len)) {
      data[n] = g_pending[g_pending_pos];
      ++n;
      ++g_pending_pos;
    }
    result = (int32_t)n;
  }
  return result;
}
