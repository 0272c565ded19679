/* Shm subscriptions made with motion_client_call and motion_client_subscribe (no reader: their regions
 * cannot be reached that way), then one made with motion_client_subscribe_shm: its reader must map its own
 * region (4,096 slots), not the first ones' (1,024, 2,048). Prints the reader's slot count. */
#include <stdio.h>
#include <stdlib.h>
#include "motion_client.h"

int main(int argc, char **argv) {
    char error[256];
    motion_client *client = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!client) {
        fprintf(stderr, "connect: %s\n", error);
        return 1;
    }
    char *result = NULL;
    if (motion_client_call(client, "subscribe", "{\"streams\":[\"frames\"],\"transport\":\"shm\",\"slots\":1024}", &result) != 0) {
        fprintf(stderr, "call: %s\n", result ? result : "?");
        return 1;
    }
    free(result);
    int sub = 0;
    if (motion_client_subscribe(client, "{\"streams\":[\"frames\"],\"transport\":\"shm\",\"slots\":2048}", &sub) != 0) {
        fprintf(stderr, "subscribe failed\n");
        return 1;
    }
    motion_frames_reader *frames = NULL;
    if (motion_client_subscribe_shm(client, "{\"streams\":[\"frames\"],\"slots\":4096}", &sub, &frames) != 0) {
        fprintf(stderr, "subscribe_shm failed\n");
        return 1;
    }
    printf("sub %d: %u slots\n", sub, (unsigned)motion_frames_reader_header(frames)->slot_capacity);
    motion_client_close(client);
    return 0;
}
