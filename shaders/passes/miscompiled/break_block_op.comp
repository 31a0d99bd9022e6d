#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

// ../break_block_op.comp after the bug: the subgroupAdd moved out of the loop's break block,
// so all four invocations count it together (4 instead of 1).
void main() {
  uint lane = gl_SubgroupInvocationID;
  bool hit = false;
  for (uint i = 0; i < 4; i++) {
    if (i == lane) {
      hit = true;
      break;
    }
  }
  uint r = subgroupAdd(1);
  if (hit) {
    result.data[lane] = r;
  }
}
