#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

// ../max_tid_break.comp after the bug: the reduction hoisted past the loop's exit branch, so
// the invocations take the max together (3 instead of tid).
void main() {
  uint tid = gl_SubgroupInvocationID;
  bool hit = false;
  for (uint i = 0; i < 8; i++) {
    if (i == tid) {
      hit = true;
      break;
    }
  }
  uint m = subgroupMax(tid);
  if (hit) {
    result.data[tid] = m;
  }
}
