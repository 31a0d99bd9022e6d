// Each iteration of the loop, the lowest invocation still in it is elected and leaves.
// Invocation `lane` writes the loop's ballot at iterations 0..=lane, so with 4 lanes the
// ballots are 0xf, 0xe, 0xc, 0x8: under maximal reconvergence the lanes still in the loop
// take each ballot together, in every model.
//
//   tangle check shaders/examples/elect_loop.wgsl --subgroup-size 4
//       --expect result=shaders/examples/elect_loop.expect.json

@group(0) @binding(0) var<storage, read_write> result : array<u32, 16>;

var<private> lane : u32;

// naga has no subgroupElect: the lowest lane of a ballot, as the WebGPU CTS writes it.
fn elect() -> bool {
  let b = subgroupBallot(true);
  return firstTrailingBit(b.x) == lane;
}

@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) sid : u32) {
  lane = sid;
  var i = 0u;
  loop {
    let b = subgroupBallot(true);
    result[4u * i + lane] = b.x;
    if elect() {
      break;
    }
    i++;
  }
}
