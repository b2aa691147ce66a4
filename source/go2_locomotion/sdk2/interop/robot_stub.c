/* A stand-in for the Go2's side of low-level DDS, in C on CycloneDDS 0.10.x (Debian's cyclonedds-dev, the version
 * line the robot runs): publishes LowState at 500 Hz (a robot standing still, CRC filled the way the firmware
 * computes it: over the C struct's memory) and checks every LowCmd's CRC the same way. Prints one JSON line of
 * counts when it ends. Built and run by run.sh; see docs/deploy_sdk2.md.
 *
 *   robot_stub <domain> <seconds>          (CYCLONEDDS_URI selects the interface)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dds/dds.h"
#include "unitree_go.h"

typedef unitree_go_msg_dds__LowState_ LowState;
typedef unitree_go_msg_dds__LowCmd_ LowCmd;

/* CRC-32, polynomial 0x04C11DB7, initial 0xFFFFFFFF, over 32-bit words most significant bit first: the robot's */
static uint32_t crc32_words(const uint32_t *words, size_t count) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < count; i++) {
    for (int bit = 31; bit >= 0; bit--) {
      uint32_t top = crc & 0x80000000u;
      crc <<= 1;
      if (top) crc ^= 0x04C11DB7u;
      if ((words[i] >> bit) & 1u) crc ^= 0x04C11DB7u;
    }
  }
  return crc;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: robot_stub <domain> <seconds>\n");
    return 2;
  }
  const dds_domainid_t domain = (dds_domainid_t)atoi(argv[1]);
  const double seconds = atof(argv[2]);
  /* SDK2 motor order: FR, FL, RR, RL x hip, thigh, calf: the standing pose of the Go2 tasks */
  const float standing[12] = {-0.1f, 0.8f, -1.5f, 0.1f, 0.8f, -1.5f, -0.1f, 1.0f, -1.5f, 0.1f, 1.0f, -1.5f};

  dds_entity_t participant = dds_create_participant(domain, NULL, NULL);
  if (participant < 0) {
    fprintf(stderr, "dds_create_participant: %s\n", dds_strretcode(-participant));
    return 1;
  }
  dds_entity_t state_topic =
      dds_create_topic(participant, &unitree_go_msg_dds__LowState__desc, "rt/lowstate", NULL, NULL);
  dds_entity_t cmd_topic = dds_create_topic(participant, &unitree_go_msg_dds__LowCmd__desc, "rt/lowcmd", NULL, NULL);
  dds_qos_t *qos = dds_create_qos();
  dds_qset_reliability(qos, DDS_RELIABILITY_BEST_EFFORT, 0);
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 64);
  dds_entity_t writer = dds_create_writer(participant, state_topic, qos, NULL);
  dds_entity_t reader = dds_create_reader(participant, cmd_topic, qos, NULL);
  dds_delete_qos(qos);
  if (writer < 0 || reader < 0) {
    fprintf(stderr, "writer/reader: %s\n", dds_strretcode(writer < 0 ? -writer : -reader));
    return 1;
  }

  LowState state;
  memset(&state, 0, sizeof state);
  state.head[0] = 0xFE;
  state.head[1] = 0xEF;
  state.level_flag = 0xFF;
  state.imu_state.quaternion[0] = 1.0f;
  state.imu_state.accelerometer[2] = 9.81f;
  for (int i = 0; i < 12; i++) {
    state.motor_state[i].mode = 1;
    state.motor_state[i].q = standing[i];
  }
  for (int i = 0; i < 4; i++) state.foot_force[i] = 37;

  long received = 0, crc_ok = 0, crc_bad = 0, damping = 0, active = 0;
  float last_kp = -1.0f, last_kd = -1.0f, max_target_error = 0.0f;
  void *samples[16] = {0};
  dds_sample_info_t infos[16];
  const double start = now_s();
  for (long k = 0;; k++) {
    double deadline = start + 0.002 * (double)k; /* 500 Hz, as the robot */
    if (deadline - start > seconds) break;
    double delay = deadline - now_s();
    if (delay > 0) dds_sleepfor(DDS_SECS(delay));
    state.tick = (uint32_t)(2 * k);
    state.crc = crc32_words((const uint32_t *)&state, sizeof state / 4 - 1);
    dds_write(writer, &state);

    int n = dds_take(reader, samples, infos, 16, 16);
    for (int j = 0; j < n; j++) {
      if (!infos[j].valid_data) continue;
      const LowCmd *cmd = (const LowCmd *)samples[j];
      received++;
      if (cmd->crc == crc32_words((const uint32_t *)cmd, sizeof *cmd / 4 - 1)) {
        crc_ok++;
      } else {
        crc_bad++;
        continue;
      }
      last_kp = cmd->motor_cmd[0].kp;
      last_kd = cmd->motor_cmd[0].kd;
      if (last_kp == 0.0f && last_kd > 0.0f) {
        damping++;
      } else if (last_kp > 0.0f) {
        active++;
        for (int i = 0; i < 12; i++) {
          float e = cmd->motor_cmd[i].q - standing[i];
          if (e < 0) e = -e;
          if (e > max_target_error) max_target_error = e;
        }
      }
    }
    if (n > 0) dds_return_loan(reader, samples, n);
  }
  printf("{\"lowcmd_size\": %zu, \"lowstate_size\": %zu, \"received\": %ld, \"crc_ok\": %ld, \"crc_bad\": %ld, "
         "\"damping\": %ld, \"active\": %ld, \"last_kp\": %g, \"last_kd\": %g, \"max_target_error\": %g}\n",
         sizeof(LowCmd), sizeof(LowState), received, crc_ok, crc_bad, damping, active, last_kp, last_kd,
         max_target_error);
  dds_delete(participant);
  return 0;
}
