/* A uid's shared-memory subscriptions hold at most `shmSlots` slots together (the test's daemon: the
 * default, 4,194,304): two of 2,097,152 fit, one more slot is refused. A region whose subscription ended is
 * released though its reader keeps the descriptor: it then reads zeros. Prints what it saw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "motion_client.h"

int main(int argc, char **argv) {
    char error[256];
    motion_client *client = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!client) {
        fprintf(stderr, "connect: %s\n", error);
        return 1;
    }
    int first = 0, second = 0;
    motion_frames_reader *kept = NULL, *other = NULL;
    if (motion_client_subscribe_shm(client, "{\"streams\":[\"frames\"],\"slots\":2097152}", &first, &kept) != 0 ||
        motion_client_subscribe_shm(client, "{\"streams\":[\"frames\"],\"slots\":2097152}", &second, &other) != 0) {
        fprintf(stderr, "subscribe_shm failed\n");
        return 1;
    }
    char *result = NULL;
    int refused = motion_client_call(client, "subscribe", "{\"streams\":[\"frames\"],\"transport\":\"shm\",\"slots\":1}", &result);
    printf("third: %s %s\n", refused ? "refused" : "accepted", result ? result : "");
    free(result);
    result = NULL;
    char params[64];
    printf("before: %.4s\n", motion_frames_reader_header(kept)->magic);
    snprintf(params, sizeof params, "{\"sub\":%d}", first);
    if (motion_client_call(client, "unsubscribe", params, &result) != 0) {
        fprintf(stderr, "unsubscribe: %s\n", result ? result : "?");
        return 1;
    }
    free(result);
    const char *magic = motion_frames_reader_header(kept)->magic;
    printf("after: %s\n", magic[0] == 0 && magic[1] == 0 && magic[2] == 0 && magic[3] == 0 ? "zeros" : "still MOTF");
    printf("other: %.4s\n", motion_frames_reader_header(other)->magic);
    result = NULL;
    refused = motion_client_call(client, "subscribe", "{\"streams\":[\"frames\"],\"transport\":\"shm\",\"slots\":1}", &result);
    printf("again: %s\n", refused ? "refused" : "accepted");
    free(result);
    motion_client_close(client);
    return 0;
}
