/*
 * Tests of the serial framing (src/rpc_framing.c) through a scripted in-memory link: CRC, escaping,
 * resynchronisation after noise and broken frames, acknowledgements, duplicates, resending after a
 * lost ACK, giving up after max_retries, the link reset.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tvm/runtime/crt/rpc_framing.h>

#include "unittest.h"

static uint8_t g_fin[2048];
static size_t g_fin_len;
static size_t g_fin_pos;
static size_t g_fin_pause; /* one read at this position times out (a lost ACK); SIZE_MAX: none */
static uint8_t g_fout[4096];
static size_t g_fout_len;

static int32_t LinkWrite(void* ctx, const uint8_t* data, size_t size) {
  size_t i;
  (void)ctx;
  for (i = 0U; (i < size) && (g_fout_len < sizeof(g_fout)); ++i) {
    g_fout[g_fout_len++] = data[i];
  }
  return (int32_t)size;
}

static int32_t LinkRead(void* ctx, uint8_t* data, size_t size, uint32_t timeout_ms) {
  size_t n = 0U;
  (void)ctx;
  (void)timeout_ms;
  if (g_fin_pos == g_fin_pause) {
    g_fin_pause = (size_t)-1;
    return 0;
  }
  while ((n < size) && (g_fin_pos < g_fin_len) && (n < 5U) && (g_fin_pos != g_fin_pause)) {
    data[n++] = g_fin[g_fin_pos++]; /* at most 5 bytes a read: frames arrive in pieces */
  }
  return (int32_t)n;
}

static void Link(uint32_t retries) {
  TVMRpcFramingConfig cfg;
  cfg.write = LinkWrite;
  cfg.read = LinkRead;
  cfg.io_context = NULL;
  cfg.ack_timeout_ms = 1U;
  cfg.max_retries = retries;
  g_fin_len = 0U;
  g_fin_pos = 0U;
  g_fin_pause = (size_t)-1;
  g_fout_len = 0U;
  UTVM_CHECK(TVMRpcFraming_Init(&cfg) == kTvmErrorNoError);
}

static void Queue(const uint8_t* data, size_t n) {
  memcpy(&g_fin[g_fin_len], data, n);
  g_fin_len += n;
}

static void QueueFrame(uint8_t header, const char* payload) {
  uint8_t frame[600];
  const size_t n = TVMRpcFraming_Encode(header, (const uint8_t*)payload, (uint8_t)strlen(payload),
                                        frame, sizeof(frame));
  UTVM_CHECK(n > 0U);
  Queue(frame, n);
}

/* Count the frames with header h in the output (complete, good CRC). */
static uint32_t CountOut(uint8_t header) {
  uint8_t frame[16];
  const size_t n = TVMRpcFraming_Encode(header, NULL, 0U, frame, sizeof(frame));
  uint32_t count = 0U;
  size_t i;
  for (i = 0U; (i + n) <= g_fout_len; ++i) {
    if (memcmp(&g_fout[i], frame, n) == 0) {
      ++count;
    }
  }
  return count;
}

static void TestCrcAndEscaping(void) {
  uint8_t frame[32];
  static const uint8_t special[2] = {0x7EU, 0x7DU};
  size_t n;
  UTVM_CHECK(TVMRpcFraming_Crc16(0xFFFFU, (const uint8_t*)"123456789", 9U) == 0x29B1U);
  n = TVMRpcFraming_Encode(0U, special, 2U, frame, sizeof(frame));
  UTVM_CHECK(frame[0] == 0x7EU);
  UTVM_CHECK((frame[3] == 0x7DU) && (frame[4] == 0x5EU) && (frame[5] == 0x7DU) && (frame[6] == 0x5DU));
  UTVM_CHECK(memchr(&frame[1], 0x7E, n - 1U) == NULL); /* a start byte only at the start */
  UTVM_CHECK(TVMRpcFraming_Encode(0U, special, 2U, frame, 4U) == 0U);
}

static void TestReceive(void) {
  static const uint8_t noise[5] = {0x00U, 0x7DU, 0x13U, 0xFFU, 0x7EU};
  uint8_t buf[16];
  uint8_t broken[64];
  size_t n;
  int32_t got;
  Link(3U);
  Queue(noise, sizeof(noise));
  n = TVMRpcFraming_Encode(0U, (const uint8_t*)"hello", 5U, broken, sizeof(broken));
  broken[4] ^= 0x01U; /* bad CRC: dropped, not acknowledged */
  Queue(broken, n);
  Queue(broken, 4U); /* a frame cut short by the next start byte */
  QueueFrame(0U, "hello");
  QueueFrame(0U, "hello"); /* duplicate (our ACK was lost): acknowledged again, not delivered */
  QueueFrame(1U, "world");
  got = TVMRpcFraming_Read(NULL, buf, 3U, 10U);
  UTVM_CHECK((got == 3) && (memcmp(buf, "hel", 3U) == 0));
  got = TVMRpcFraming_Read(NULL, buf, sizeof(buf), 10U);
  UTVM_CHECK((got == 2) && (memcmp(buf, "lo", 2U) == 0));
  got = TVMRpcFraming_Read(NULL, buf, sizeof(buf), 10U);
  UTVM_CHECK((got == 5) && (memcmp(buf, "world", 5U) == 0));
  UTVM_CHECK(CountOut(0x02U) == 2U); /* ACK 0 twice */
  UTVM_CHECK(CountOut(0x03U) == 1U); /* ACK 1 */
  UTVM_CHECK(TVMRpcFraming_Read(NULL, buf, sizeof(buf), 10U) == 0); /* nothing more: timeout */
}

static void TestSendResendAndGiveUp(void) {
  uint8_t data[300];
  uint8_t frame[600];
  size_t i;
  size_t n;
  for (i = 0U; i < sizeof(data); ++i) {
    data[i] = (uint8_t)i;
  }
  Link(3U);
  g_fin_pause = 0U; /* the first ACK is lost: frame 0 goes out twice */
  QueueFrame(0x02U, "");
  QueueFrame(0x02U, ""); /* a stale duplicate ACK 0 ... */
  QueueFrame(0x03U, ""); /* ... then ACK 1 */
  QueueFrame(0x02U, "");
  UTVM_CHECK(TVMRpcFraming_Write(NULL, data, sizeof(data)) == 300);
  n = TVMRpcFraming_Encode(0U, data, (uint8_t)TVM_CRT_RPC_FRAME_PAYLOAD, frame, sizeof(frame));
  {
    uint32_t count = 0U;
    for (i = 0U; (i + n) <= g_fout_len; ++i) {
      if (memcmp(&g_fout[i], frame, n) == 0) {
        ++count;
      }
    }
    UTVM_CHECK(count == 2U);
  }
  Link(2U); /* no ACK at all: 1 + 2 retries, then a write error */
  UTVM_CHECK(TVMRpcFraming_Write(NULL, data, 10U) < 0);
}

/* A RESET frame from the host: sequence numbers back to 0, the read in progress fails (the server
 * abandons its packet), the answer echoes the nonce; RESET|ACK from the host and a nonce longer
 * than 8 bytes are ignored; Announce sends RESET|ACK without payload. */
static void TestLinkReset(void) {
  uint8_t buf[16];
  uint8_t answer[32];
  size_t n;
  Link(3U);
  TVMRpcFraming_Announce();
  UTVM_CHECK(CountOut(0x06U) == 1U);
  UTVM_CHECK(TVMRpcFraming_TakeReset() == 0U);
  QueueFrame(0U, "ab");           /* seq 0 delivered: the device now expects seq 1 */
  QueueFrame(0x06U, "zz");        /* RESET|ACK from the host: ignored */
  QueueFrame(0x04U, "123456789"); /* nonce too long: ignored */
  QueueFrame(0x04U, "nonce");
  QueueFrame(0U, "cd");           /* seq 0 again: new after the reset */
  UTVM_CHECK((TVMRpcFraming_Read(NULL, buf, 1U, 10U) == 1) && (buf[0] == (uint8_t)'a'));
  UTVM_CHECK(TVMRpcFraming_Read(NULL, buf, sizeof(buf), 10U) == 1); /* "b" */
  UTVM_CHECK(TVMRpcFraming_Read(NULL, buf, sizeof(buf), 10U) < 0);  /* the reset */
  UTVM_CHECK(TVMRpcFraming_TakeReset() == 1U);
  UTVM_CHECK(TVMRpcFraming_TakeReset() == 0U);
  UTVM_CHECK((TVMRpcFraming_Read(NULL, buf, sizeof(buf), 10U) == 2) && (memcmp(buf, "cd", 2U) == 0));
  n = TVMRpcFraming_Encode(0x06U, (const uint8_t*)"nonce", 5U, answer, sizeof(answer));
  UTVM_CHECK((n > 0U) && (g_fout_len >= n));
  {
    uint32_t found = 0U;
    size_t i;
    for (i = 0U; (i + n) <= g_fout_len; ++i) {
      found += (memcmp(&g_fout[i], answer, n) == 0) ? 1U : 0U;
    }
    UTVM_CHECK(found == 1U);
  }
  UTVM_CHECK(CountOut(0x02U) == 2U); /* ACK 0 before and after the reset */
}

#define RPC_FRAMING_CASES(X) X(CrcAndEscaping) X(Receive) X(SendResendAndGiveUp) X(LinkReset)

UTVM_SUITE(rpc_framing, RPC_FRAMING_CASES)
