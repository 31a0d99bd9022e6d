#version 450
// for (i = 0; i < 8; i++) if (i == tid) { out = subgroupMax(tid); break; }
// Each invocation takes the max alone, in its own iteration: result[tid] = tid. Hoisting the
// reduction past the loop's exit (as LLVM did with per-iteration reductions) gives 3 to all.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

void main() {
  uint tid = gl_SubgroupInvocationID;
  for (uint i = 0; i < 8; i++) {
    if (i == tid) {
      result.data[tid] = subgroupMax(tid);
      break;
    }
  }
}
