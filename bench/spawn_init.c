/* One MCP server start over stdio pipes, for counting what it costs independently of the
   machine's load: spawns ARGV with pipes for stdin and stdout (stderr to /dev/null), sends
   `initialize`, reads the answer's line, closes stdin and waits for the server to exit. Run it
   under a counter, beside the floor (bench/hello_mcp.c) (README, "Memory beside the reference
   servers"):
     cc -O2 -o target/spawn-init bench/spawn_init.c
     perf stat -r 50 -e page-faults,context-switches target/spawn-init target/release/charter mcp --pack slack
     perf stat -r 50 -e page-faults,context-switches target/spawn-init target/hello-mcp
     valgrind --tool=callgrind --trace-children=yes target/spawn-init target/release/charter mcp --pack slack */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char REQUEST[] =
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
  "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"0\"}}}\n";

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: spawn-init SERVER [ARG...]\n"); return 2; }
  int in[2], out[2];
  if (pipe(in) || pipe(out)) { perror("pipe"); return 1; }
  pid_t pid = fork();
  if (pid < 0) { perror("fork"); return 1; }
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(in[0], 0); dup2(out[1], 1); dup2(null, 2);
    close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(null);
    execv(argv[1], argv + 1);
    _exit(127);
  }
  close(in[0]); close(out[1]);
  if (write(in[1], REQUEST, sizeof REQUEST - 1) != (ssize_t)(sizeof REQUEST - 1)) { perror("write"); return 1; }
  char buf[65536]; size_t n = 0;
  while (!memchr(buf, '\n', n)) {
    ssize_t r = read(out[0], buf + n, sizeof buf - n);
    if (r <= 0) { fprintf(stderr, "spawn-init: %s closed stdout before answering\n", argv[1]); return 1; }
    n += (size_t)r;
    if (n == sizeof buf) break;
  }
  close(in[1]);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
