#version 450
// The nested form: for i, for j, if (2i + j == tid) { out = subgroupMax(tid); leave both }.
// Each invocation still takes the max alone: result[tid] = tid.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

void main() {
  uint tid = gl_SubgroupInvocationID;
  bool done = false;
  for (uint i = 0; i < 2 && !done; i++) {
    for (uint j = 0; j < 2; j++) {
      if (2 * i + j == tid) {
        result.data[tid] = subgroupMax(tid);
        done = true;
        break;
      }
    }
  }
}
