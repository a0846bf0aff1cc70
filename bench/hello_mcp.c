/* The floor of bench/memory_driver.py's spawn->initialize: a process that answers each request
   line with a fixed result at once, with no runtime, no tables and only libc mapped (README,
   "Memory beside the reference servers"). Build: cc -O2 -o target/hello-mcp bench/hello_mcp.c */
#include <stdio.h>
#include <string.h>
int main(void){ char buf[65536]; 
  while (fgets(buf, sizeof buf, stdin)) { if (strstr(buf, "\"id\"")) { 
    const char *id = strstr(buf, "\"id\":"); int n = 0; sscanf(id+5, "%d", &n);
    printf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"h\",\"version\":\"1\"},\"tools\":[]}}\n", n); fflush(stdout);} }
  return 0; }
