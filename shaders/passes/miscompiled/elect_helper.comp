#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

// ../elect_helper.comp after the bug: the caller's subgroupElect() pulled into the helper's
// loop, before the invocations are back together, so every invocation is elected alone.
void main() {
  uint lane = gl_SubgroupInvocationID;
  while (true) {
    if (subgroupElect()) {
      result.data[lane] = subgroupElect() ? 1u : 0u;
      return;
    }
  }
}
