/* ClientLibraryTests: a keyed call made while motiond restarts is sent again until the new daemon answers
 * it, and a repeat with the same key is answered with the first result (docs/protocol.md#idempotency-keys):
 * `runtime.create` of a lasting runtime twice would otherwise be refused with runtime.exists. */
#include <motion_client.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char error[256];
    motion_client *client = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!client) {
        printf("connect: %s\n", error);
        return 1;
    }
    /* An empty key is refused as motiond refuses it, and said why (it was -2, a "failed connection", and no error). */
    char *refused = NULL;
    int empty = motion_client_call_keyed(client, "runtime.create", "{\"name\":\"never\"}", "", 1000, &refused);
    const char *why = motion_client_last_error(client);
    printf("empty key: %d %s\n", empty, why && strstr(why, "\"request.invalid\"") && refused && strcmp(refused, why) == 0 ? "request.invalid" : (why ? why : "(no error)"));
    free(refused);
    if (motion_client_call(client, "runtime.create", "{\"name\":\"waiting-keyed\",\"ephemeral\":true}", NULL) != 0) return 1;
    printf("waiting\n");
    fflush(stdout);
    /* The daemon's last line (server.shutting_down) makes the socket readable: the restart has begun. */
    struct pollfd waiting = {.fd = motion_client_fd(client), .events = POLLIN};
    if (poll(&waiting, 1, 60000) != 1) return 1;
    char *first = NULL, *again = NULL;
    int status = motion_client_call_keyed(client, "runtime.create", "{\"name\":\"kept-keyed\"}", "create-kept", 60000, &first);
    printf("keyed across the restart: %d %s\n", status, first ? first : "(none)");
    int repeat = motion_client_call_keyed(client, "runtime.create", "{\"name\":\"kept-keyed\"}", "create-kept", 60000, &again);
    printf("repeat: %d %s\n", repeat, repeat == 0 && status == 0 && strcmp(first, again) == 0 ? "the first result" : (again ? again : "(none)"));
    free(first);
    free(again);
    motion_client_close(client);
    return status == 0 && repeat == 0 ? 0 : 1;
}
