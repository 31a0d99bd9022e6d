#version 450
// The loop of elect_loop.wgsl in GLSL, with the real subgroupElect(): each iteration the
// lowest invocation still in the loop leaves it. Expected: elect_loop.expect.json.
//
//   tangle check shaders/examples/elect_loop.comp --subgroup-size 4
//       --expect result=shaders/examples/elect_loop.expect.json
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint data[16]; } result;

void main() {
  uint lane = gl_SubgroupInvocationID;
  uint i = 0;
  while (true) {
    uvec4 b = subgroupBallot(true);
    result.data[4 * i + lane] = b.x;
    if (subgroupElect()) {
      break;
    }
    i++;
  }
}
