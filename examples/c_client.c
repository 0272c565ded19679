/* A C client of motiond with libmotion-client (docs/clients.md): a spring on a card, its frames as typed values.
 *
 *   cc examples/c_client.c $(pkg-config --cflags --libs motion-client) -o c_client && ./c_client [SOCKET]
 */
#include <motion_client.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char error[512];
    motion_client *client = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!client) {
        fprintf(stderr, "c_client: %s\n", error);
        return 1;
    }
    int sub = -1;
    if (motion_client_subscribe(client, "{\"streams\":[\"frames\",\"trace\"],\"targets\":[\"card\"]}", &sub) != 0) {
        fprintf(stderr, "c_client: subscribe failed\n");
        return 1;
    }
    char *result = NULL;
    int status = motion_client_call(client, "plan.add",
                                    "{\"target\":\"card\",\"plan\":{\"type\":\"Spring\",\"property\":\"position\","
                                    "\"from\":[0,0],\"to\":[100,50],\"dampingRatio\":1,\"response\":0.3}}", &result);
    printf("plan.add: %s\n", result ? result : "(no reply)");
    free(result);
    if (status != 0) return 1;
    /* A mistake, answered with an error object rather than a crash. */
    status = motion_client_call(client, "plan.add", "{\"target\":\"card\",\"plan\":{\"type\":\"Spring\",\"to\":[1],\"dampng\":2}}", &result);
    printf("a bad plan: %d %s\n", status, result ? result : "");
    free(result);

    int frames = 0;
    double last[2] = {0, 0};
    motion_event event;
    while (motion_client_next_event(client, 5000, &event) == 1) {
        if (event.kind == MOTION_EVENT_FRAME && event.sub == sub) {
            for (size_t index = 0; index < event.update_count; index++) {
                const motion_update *update = &event.updates[index];
                if (strcmp(update->target, "card") == 0 && strcmp(update->property, "position") == 0 && update->count == 2) {
                    last[0] = update->value[0];
                    last[1] = update->value[1];
                }
            }
            frames++;
        } else if (event.kind == MOTION_EVENT_TRACE && strstr(event.json, "\"kind\":\"animation.ended\"")) {
            break;
        }
    }
    printf("%d frames; card.position = [%g, %g]\n", frames, last[0], last[1]);
    motion_client_close(client);
    return frames > 0 && last[0] == 100 && last[1] == 50 ? 0 : 1;
}
