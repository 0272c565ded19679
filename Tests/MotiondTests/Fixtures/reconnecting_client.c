/* ClientLibraryTests: subscribes (to "unwanted" with a plain call, then unsubscribed, and to "after"),
 * then waits (reconnecting) until a frame of target "after" arrives on a later connection, animating
 * "unwanted" once reconnected; prints what happened. */
#include <motion_client.h>

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
    char *result = NULL;
    if (motion_client_call(client, "subscribe", "{\"streams\":[\"frames\"],\"targets\":[\"unwanted\"]}", &result) != 0) return 1;
    const int unwanted = strstr(result, "\"sub\":1") ? 1 : -1;
    free(result);
    int sub = -1;
    if (motion_client_subscribe(client, "{\"streams\":[\"frames\"],\"targets\":[\"after\"]}", &sub) != 0) return 1;
    if (motion_client_call(client, "unsubscribe", "{\"sub\":1}", NULL) != 0) return 1;
    printf("subscribed %d after %d\n", sub, unwanted);
    fflush(stdout);
    int reconnected = 0;
    motion_event event;
    while (motion_client_next_event(client, -1, &event) == 1) {
        if (event.kind == MOTION_EVENT_OTHER && strstr(event.json, "\"reconnected\"")) {
            reconnected = 1;
            printf("reconnected\n");
            fflush(stdout);
            motion_client_call(client, "plan.add",
                               "{\"target\":\"unwanted\",\"plan\":{\"type\":\"Set\",\"property\":\"x\",\"value\":[1]}}", NULL);
        } else if (event.kind == MOTION_EVENT_FRAME && event.sub == unwanted) {
            printf("a frame for the unsubscribed subscription\n");
            return 1;
        } else if (event.kind == MOTION_EVENT_FRAME && event.sub == sub && event.update_count > 0 && reconnected) {
            printf("frame %s.%s = %g\n", event.updates[0].target, event.updates[0].property, event.updates[0].value[0]);
            motion_client_close(client);
            return 0;
        }
    }
    printf("the connection ended\n");
    return 1;
}
