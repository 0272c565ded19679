/* Shared-memory frames with libmotion-client (docs/clients.md): springs on three cards, their values read from
 * the region the daemon maps for this subscription, named by the slot events.
 *
 *   cc examples/c_shm_reader.c $(pkg-config --cflags --libs motion-client) -o c_shm_reader && ./c_shm_reader [SOCKET]
 */
#include <motion_client.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char error[512];
    motion_client *client = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!client) {
        fprintf(stderr, "c_shm_reader: %s\n", error);
        return 1;
    }
    int sub = -1;
    motion_frames_reader *frames = NULL;
    if (motion_client_subscribe_shm(client, "{\"streams\":[\"frames\"],\"targets\":[\"card1\",\"card2\",\"card3\"]}", &sub,
                                    &frames) != 0) {
        fprintf(stderr, "c_shm_reader: subscribe failed\n");
        return 1;
    }
    const motion_frames_header *header = motion_frames_reader_header(frames);
    printf("region: %.4s %u.%u, %u slots\n", header->magic, header->version_major, header->version_minor,
           header->slot_capacity);
    for (int card = 1; card <= 3; card++) {
        char params[256];
        snprintf(params, sizeof params,
                 "{\"target\":\"card%d\",\"plan\":{\"type\":\"Spring\",\"property\":\"x\",\"from\":[0],\"to\":[%d],"
                 "\"dampingRatio\":1,\"response\":0.2}}", card, card * 100);
        if (motion_client_call(client, "plan.add", params, NULL) != 0) return 1;
    }
    double latest[4] = {0, 0, 0, 0};
    int announcements = 0;
    motion_event event;
    motion_frames_value values[256];
    while (motion_client_next_event(client, 3000, &event) == 1) {
        if (event.kind != MOTION_EVENT_FRAME || event.sub != sub) continue;
        announcements++;
        size_t count;
        while ((count = motion_frames_reader_read(frames, values, 256)) > 0) {
            for (size_t index = 0; index < count; index++) {
                const char *target, *property;
                if (!motion_frames_reader_name(frames, values[index].slot, values[index].tag, NULL, &target, &property)) {
                    fprintf(stderr, "c_shm_reader: slot %u has no name\n", values[index].slot);
                    return 1;
                }
                int card = atoi(target + 4);
                if (card >= 1 && card <= 3 && strcmp(property, "x") == 0) latest[card] = values[index].value[0];
            }
        }
        if (latest[1] == 100 && latest[2] == 200 && latest[3] == 300) break;
    }
    printf("after %d frames: card1.x = %g, card2.x = %g, card3.x = %g (frame %llu)\n", announcements, latest[1],
           latest[2], latest[3], (unsigned long long)motion_frames_reader_frame(frames));
    motion_client_close(client);
    return latest[1] == 100 && latest[2] == 200 && latest[3] == 300 ? 0 : 1;
}
