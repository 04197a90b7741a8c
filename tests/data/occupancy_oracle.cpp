// NVIDIA's own occupancy calculator (cuda_occupancy.h, shipped with the CUDA toolkit) as a
// command: one query a line on stdin, "major minor threads regs dynamic_smem <device fields>",
// the active blocks per SM a line on stdout. tests/test_occupancy_header.py compiles it with
// the host compiler and compares playground's calculator with it.
#include <climits>
#include <cstdio>
#include "cuda_occupancy.h"

int main() {
    int major, minor, threads, regs, threads_per_sm, regs_per_sm, regs_per_block;
    long smem, smem_per_sm, smem_per_block, optin, reserved;
    while (scanf("%d %d %d %d %ld %d %d %d %ld %ld %ld %ld", &major, &minor, &threads, &regs, &smem,
                 &threads_per_sm, &regs_per_sm, &regs_per_block, &smem_per_sm, &smem_per_block, &optin,
                 &reserved) == 12) {
        cudaOccDeviceProp prop;
        prop.computeMajor = major;
        prop.computeMinor = minor;
        prop.maxThreadsPerBlock = 1024;
        prop.maxThreadsPerMultiprocessor = threads_per_sm;
        prop.regsPerBlock = regs_per_block;
        prop.regsPerMultiprocessor = regs_per_sm;
        prop.warpSize = 32;
        prop.sharedMemPerBlock = smem_per_block;
        prop.sharedMemPerMultiprocessor = smem_per_sm;
        prop.numSms = 1;
        prop.sharedMemPerBlockOptin = optin;
        prop.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = INT_MAX;
        attr.numRegs = regs;
        attr.sharedSizeBytes = 0;                  // Triton's shared memory is all dynamic
        attr.maxDynamicSharedSizeBytes = optin;    // Triton's launcher opts every kernel in
        attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        cudaOccDeviceState state;
        cudaOccResult result;
        cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, threads, smem);
        printf("%d\n", status == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : -1);
        fflush(stdout);
    }
    return 0;
}
