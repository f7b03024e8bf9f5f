/*
 * utvm-build C runtime: the RPC server as a host (POSIX) process.
 *
 *   rpc_server [options] RFD WFD        serve one session on two file descriptors
 *                                       (what tvm.rpc.PopenSession(path) runs)
 *   rpc_server [options] --stdio        serve one session on stdin/stdout
 *   rpc_server [options] --tcp PORT     serve TCP sessions on 127.0.0.1:PORT, one at a time
 *                                       (PORT 0: any free port; the port is printed on stdout as
 *                                       "listening 127.0.0.1:PORT"); --once: only one session
 *                                       (a dropped or refused connection does not count);
 *                                       --key KEY: only clients that connect with this key
 * Options: --arena-bytes N (default 1 MiB), --read-timeout-ms N (default 2000), --framed (the
 * link carries the serial frames of rpc_framing.h, as a UART would; for testing the framing),
 * --forever (after a Shutdown, wait for the next session as a board does: a pty as a serial port).
 *
 * TCP and untrusted clients (docs/rpc.md, "Threat model"): the handshake must arrive within the
 * read timeout (each read waits at most that long, and the whole handshake too); a session that
 * has been idle for the read timeout while another client waits in the accept queue is closed, so
 * a silent or half-open client delays the next one by at most the read timeout; a write that cannot
 * proceed for the read timeout (a client that does not read) ends the session.
 *
 * Link with the model's generated sources (packed interface, system library), libutvm_crt.a and
 * libutvm_crt_host.a (platform hooks). Host-only: a firmware has its own main and transport.
 */
#define _POSIX_C_SOURCE 200112L

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <tvm/runtime/crt/crt.h>
#include <tvm/runtime/crt/rpc_framing.h>
#include <tvm/runtime/crt/rpc_server.h>

#define RPC_MAGIC 0xFF271

typedef struct {
  int read_fd;
  int write_fd;
} FdPair;

static int32_t FdWrite(void* context, const uint8_t* data, size_t size) {
  const FdPair* fds = (const FdPair*)context;
  ssize_t n;
  do {
    n = write(fds->write_fd, data, size > 0x7FFFFFFFU ? 0x7FFFFFFFU : size);
  } while ((n < 0) && (errno == EINTR));
  return (n <= 0) ? -1 : (int32_t)n;
}

static int32_t FdRead(void* context, uint8_t* data, size_t size, uint32_t timeout_ms) {
  const FdPair* fds = (const FdPair*)context;
  struct pollfd p;
  int ready;
  ssize_t n;
  p.fd = fds->read_fd;
  p.events = POLLIN;
  p.revents = 0;
  do {
    ready = poll(&p, 1, (timeout_ms == 0xFFFFFFFFU) ? -1 : (int)timeout_ms);
  } while ((ready < 0) && (errno == EINTR));
  if (ready < 0) {
    return -1;
  }
  if (ready == 0) {
    return 0;
  }
  do {
    n = read(fds->read_fd, data, size > 0x7FFFFFFFU ? 0x7FFFFFFFU : size);
  } while ((n < 0) && (errno == EINTR));
  return (n <= 0) ? -1 : (int32_t)n;
}

static int64_t NowMs(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + (int64_t)(ts.tv_nsec / 1000000);
}

/* Read exactly size bytes before the monotonic time deadline_ms; -1 on timeout, error or EOF. */
static int ReadAllBy(int fd, void* buf, size_t size, int64_t deadline_ms) {
  size_t done = 0;
  while (done < size) {
    struct pollfd p;
    ssize_t n;
    int ready;
    const int64_t left = deadline_ms - NowMs();
    if (left <= 0) {
      return -1;
    }
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    ready = poll(&p, 1, (int)left);
    if ((ready < 0) && (errno == EINTR)) {
      continue;
    }
    if (ready <= 0) {
      return -1;
    }
    n = read(fd, (char*)buf + done, size - done);
    if ((n < 0) && (errno == EINTR)) {
      continue;
    }
    if (n <= 0) {
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

static int WriteAll(int fd, const void* buf, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, (const char*)buf + done, size - done);
    if (n <= 0) {
      return -1;
    }
    done += (size_t)n;
  }
  return 0;
}

static int g_framed = 0;
static int g_forever = 0; /* after Shutdown, serve the next session (as a board does) */
static int g_listener = -1; /* TCP: the listening socket (a waiting client takes over an idle session) */
static const char* g_key = NULL; /* TCP: --key (NULL: any key is accepted) */

/* 1 when a client waits in the listener's accept queue. */
static int ClientWaiting(void) {
  struct pollfd p;
  p.fd = g_listener;
  p.events = POLLIN;
  p.revents = 0;
  return (g_listener >= 0) && (poll(&p, 1, 0) == 1) && ((p.revents & POLLIN) != 0);
}

/* TVMRpcServer_Run, except that over TCP a session idle for timeout_ms yields to a waiting client. */
static TVMRpcPollResult RunSession(uint32_t timeout_ms) {
  TVMRpcPollResult r = kTVMRpcIdle;
  if (g_listener < 0) {
    return TVMRpcServer_Run();
  }
  while ((r == kTVMRpcIdle) || (r == kTVMRpcPacketDone)) {
    r = TVMRpcServer_Poll(timeout_ms);
    if ((r == kTVMRpcIdle) && ClientWaiting()) {
      fprintf(stderr, "rpc_server: session idle for %u ms while another client waits: closed\n",
              (unsigned)timeout_ms);
      r = kTVMRpcClosed;
    }
  }
  return r;
}

static TVMRpcPollResult Serve(FdPair* fds, uint8_t* arena, size_t arena_size, uint32_t timeout_ms) {
  TVMRpcServerConfig cfg;
  cfg.write = FdWrite;
  cfg.read = FdRead;
  cfg.io_context = fds;
  if (g_framed) {
    TVMRpcFramingConfig link;
    link.write = FdWrite;
    link.read = FdRead;
    link.io_context = fds;
    link.ack_timeout_ms = 100U;
    link.max_retries = 50U;
    if (TVMRpcFraming_Init(&link) != kTvmErrorNoError) {
      return kTVMRpcIoError;
    }
    TVMRpcFraming_Announce(); /* a host already in a session learns that this is a new server */
    cfg.write = TVMRpcFraming_Write;
    cfg.read = TVMRpcFraming_Read;
    cfg.io_context = NULL;
  }
  cfg.arena = arena;
  cfg.arena_size = arena_size;
  cfg.read_timeout_ms = timeout_ms;
  if (TVMRpcServer_Init(&cfg) != kTvmErrorNoError) {
    fprintf(stderr, "rpc_server: TVMRpcServer_Init failed\n");
    return kTVMRpcIoError;
  }
  for (;;) {
    const TVMRpcPollResult r = RunSession(timeout_ms);
    /* framed: a link reset by the host (a new session) ends the packet in progress, not the server */
    if (!((g_forever && (r == kTVMRpcShutdown)) ||
          (g_framed && (r != kTVMRpcShutdown) && (TVMRpcFraming_TakeReset() != 0U)))) {
      return r;
    }
  }
}

/* 1 when the client's key ("client:KEY", then optional space-separated options, as TVM sends it)
 * names --key; every byte is compared (no early exit on the first difference). */
static int KeyMatches(const char* key, size_t keylen) {
  static const char kPrefix[] = "client:";
  const size_t prefix = sizeof(kPrefix) - 1U;
  const size_t want = strlen(g_key);
  size_t len = 0;
  size_t i;
  unsigned diff = 0U;
  while ((len < keylen) && (key[len] != ' ')) {
    ++len;
  }
  if (len != prefix + want) {
    return 0;
  }
  for (i = 0; i < len; ++i) {
    const char expected = (i < prefix) ? kPrefix[i] : g_key[i - prefix];
    diff |= (unsigned)(unsigned char)(key[i] ^ expected);
  }
  return diff == 0U;
}

/* TCP handshake of tvm.rpc.connect: magic, key length, key; answered with magic and our key, or
 * with magic + 2 (mismatch) when --key is given and the client's differs. The whole handshake must
 * arrive within timeout_ms. */
static int Handshake(int fd, uint32_t timeout_ms) {
  static const char kKey[] = "server:utvm-build";
  const int64_t deadline = NowMs() + (int64_t)timeout_ms;
  int32_t magic = 0;
  int32_t keylen = 0;
  char key[4096];
  if ((ReadAllBy(fd, &magic, 4, deadline) != 0) || (magic != RPC_MAGIC) ||
      (ReadAllBy(fd, &keylen, 4, deadline) != 0) || (keylen < 0) || (keylen > (int32_t)sizeof(key)) ||
      (ReadAllBy(fd, key, (size_t)keylen, deadline) != 0)) {
    fprintf(stderr, "rpc_server: no valid handshake within %u ms: connection dropped\n", (unsigned)timeout_ms);
    return -1;
  }
  if ((g_key != NULL) && (KeyMatches(key, (size_t)keylen) == 0)) {
    magic = RPC_MAGIC + 2;
    (void)WriteAll(fd, &magic, 4);
    fprintf(stderr, "rpc_server: wrong key: connection refused\n");
    return -1;
  }
  magic = RPC_MAGIC;
  keylen = (int32_t)(sizeof(kKey) - 1U);
  if ((WriteAll(fd, &magic, 4) != 0) || (WriteAll(fd, &keylen, 4) != 0) ||
      (WriteAll(fd, kKey, (size_t)keylen) != 0)) {
    return -1;
  }
  return 0;
}

static int ServeTcp(int port, int once, uint8_t* arena, size_t arena_size, uint32_t timeout_ms) {
  struct sockaddr_in addr;
  socklen_t addr_len = sizeof(addr);
  int one = 1;
  int served = 0;
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) {
    perror("rpc_server: socket");
    return 1;
  }
  (void)setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons((uint16_t)port);
  if ((bind(listener, (struct sockaddr*)&addr, sizeof(addr)) != 0) || (listen(listener, 1) != 0) ||
      (getsockname(listener, (struct sockaddr*)&addr, &addr_len) != 0)) {
    perror("rpc_server: bind/listen");
    close(listener);
    return 1;
  }
  printf("listening 127.0.0.1:%d\n", (int)ntohs(addr.sin_port));
  fflush(stdout);
  g_listener = listener;
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    if (conn < 0) {
      if (errno == EINTR) {
        continue;
      }
      perror("rpc_server: accept");
      break;
    }
    (void)setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    {
      /* a client that stops reading cannot hold a write (and so the server) longer than this */
      struct timeval tv;
      tv.tv_sec = (time_t)(timeout_ms / 1000U);
      tv.tv_usec = (suseconds_t)((timeout_ms % 1000U) * 1000U);
      (void)setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    }
    served = 0;
    if (Handshake(conn, timeout_ms) == 0) {
      FdPair fds;
      fds.read_fd = conn;
      fds.write_fd = conn;
      (void)Serve(&fds, arena, arena_size, timeout_ms);
      served = 1;
    }
    close(conn);
    if (once && served) { /* a dropped or refused connection does not use up --once */
      break;
    }
  }
  g_listener = -1;
  close(listener);
  return 0;
}

static int ParseInt(const char* s, long* out) {
  char* end = NULL;
  long v;
  errno = 0;
  v = strtol(s, &end, 10);
  if ((errno != 0) || (end == s) || (*end != '\0') || (v < 0)) {
    return -1;
  }
  *out = v;
  return 0;
}

static int Usage(void) {
  fprintf(stderr,
          "usage: rpc_server [--arena-bytes N] [--read-timeout-ms N] [--framed] [--forever] "
          "(RFD WFD | --stdio | --tcp PORT [--once] [--key KEY])\n");
  return 2;
}

int main(int argc, char** argv) {
  long arena_bytes = 1L << 20;
  long timeout_ms = 2000;
  long tcp_port = -1;
  long fd_args[2];
  int n_fds = 0;
  int use_stdio = 0;
  int once = 0;
  int i;
  uint8_t* arena;
  int rc = 0;
  for (i = 1; i < argc; ++i) {
    if ((strcmp(argv[i], "--arena-bytes") == 0) && (i + 1 < argc)) {
      if (ParseInt(argv[++i], &arena_bytes) != 0 || arena_bytes < 1) return Usage();
    } else if ((strcmp(argv[i], "--read-timeout-ms") == 0) && (i + 1 < argc)) {
      if (ParseInt(argv[++i], &timeout_ms) != 0) return Usage();
    } else if ((strcmp(argv[i], "--tcp") == 0) && (i + 1 < argc)) {
      if (ParseInt(argv[++i], &tcp_port) != 0 || tcp_port > 65535) return Usage();
    } else if ((strcmp(argv[i], "--key") == 0) && (i + 1 < argc)) {
      g_key = argv[++i];
    } else if (strcmp(argv[i], "--stdio") == 0) {
      use_stdio = 1;
    } else if (strcmp(argv[i], "--framed") == 0) {
      g_framed = 1;
    } else if (strcmp(argv[i], "--forever") == 0) {
      g_forever = 1;
    } else if (strcmp(argv[i], "--once") == 0) {
      once = 1;
    } else if ((n_fds < 2) && (ParseInt(argv[i], &fd_args[n_fds]) == 0)) {
      ++n_fds;
    } else {
      return Usage();
    }
  }
  if (((tcp_port >= 0) + use_stdio + (n_fds == 2)) != 1 || (n_fds == 1) || ((g_key != NULL) && (tcp_port < 0)) ||
      (timeout_ms < 1) || (timeout_ms > 3600000L)) {
    return Usage();
  }
  signal(SIGPIPE, SIG_IGN);
  if (TVMInitializeRuntime() != 0) {
    fprintf(stderr, "rpc_server: TVMInitializeRuntime failed\n");
    return 1;
  }
  arena = (uint8_t*)malloc((size_t)arena_bytes);
  if (arena == NULL) {
    fprintf(stderr, "rpc_server: cannot allocate the arena\n");
    return 1;
  }
  if (tcp_port >= 0) {
    rc = ServeTcp((int)tcp_port, once, arena, (size_t)arena_bytes, (uint32_t)timeout_ms);
  } else {
    FdPair fds;
    TVMRpcPollResult result;
    fds.read_fd = use_stdio ? 0 : (int)fd_args[0];
    fds.write_fd = use_stdio ? 1 : (int)fd_args[1];
    result = Serve(&fds, arena, (size_t)arena_bytes, (uint32_t)timeout_ms);
    rc = (result == kTVMRpcShutdown || result == kTVMRpcClosed) ? 0 : 1;
  }
  free(arena);
  return rc;
}
