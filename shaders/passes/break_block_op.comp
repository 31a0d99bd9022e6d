#version 450
// A subgroup op in a loop's break block. In iteration i only invocation i enters the `if`,
// so subgroupAdd(1) counts one invocation. Moving the op out of the loop (as merging a loop's
// break block did in SPIRV-Tools and DXC) makes all four count it together.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

void main() {
  uint lane = gl_SubgroupInvocationID;
  for (uint i = 0; i < 4; i++) {
    if (i == lane) {
      result.data[lane] = subgroupAdd(1);
      break;
    }
  }
}
