#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

// ../broadcast_first_arms.comp after the bug: the two broadcasts of the same value merged into
// one before the branch (0 for every invocation instead of 0, 0, 2, 2).
void main() {
  uint lane = gl_SubgroupInvocationID;
  uint b = subgroupBroadcastFirst(lane);
  uint r;
  if (lane < 2) {
    r = b;
  } else {
    r = b;
  }
  result.data[lane] = r;
}
