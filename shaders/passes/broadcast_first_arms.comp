#version 450
// Two subgroupBroadcastFirst of the same value in both arms of an `if`. Each arm's lowest
// invocation is a different one: result = 0, 0, 2, 2. Merging the two calls into one before
// the branch (as EarlyCSE did with readfirstlane in LLPC) gives 0 to all.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

void main() {
  uint lane = gl_SubgroupInvocationID;
  uint r;
  if (lane < 2) {
    r = subgroupBroadcastFirst(lane);
  } else {
    r = subgroupBroadcastFirst(lane);
  }
  result.data[lane] = r;
}
