package embed

// devCorpus returns a larger evaluation corpus in the style of the demo textbook:
// markdown chunks about ROS 2, simulation, NVIDIA Isaac, vision-language-
// action models and humanoid robots, and student questions that paraphrase
// one chunk each. TestDevRetrieval reports how the model ranks
// them; the thresholds there are loose on purpose.
func devCorpus() ([]string, []devQuery) {
	docs := []string{
		// 0
		`## What is ROS 2?
The Robot Operating System 2 is not an operating system but a middleware framework: a set of libraries, tools and conventions for building robot software out of many small cooperating processes. ROS 2 replaced the custom transport of ROS 1 with DDS, an industry standard for real-time publish-subscribe communication, which brings discovery without a central master, security plugins and configurable quality of service. Most distributions target Ubuntu LTS releases; Humble and Jazzy are long-term support versions.`,
		// 1
		`## Nodes
A node is a single executable unit that does one job, such as reading a lidar, estimating pose or planning a path. Keeping nodes small makes a system easier to debug, because each node can be started, stopped and inspected on its own with ` + "`ros2 node list`" + ` and ` + "`ros2 node info`" + `. Several nodes can share one process through composition, which avoids copying messages between processes.`,
		// 2
		`## Topics and messages
Topics are named buses over which nodes exchange typed messages. A publisher writes messages such as ` + "`sensor_msgs/msg/Image`" + ` to a topic and every subscriber to that topic receives a copy, without either side knowing about the other. This many-to-many, anonymous pattern suits continuous data streams like camera frames, joint states and odometry. You can watch traffic with ` + "`ros2 topic echo /scan`" + ` and measure its rate with ` + "`ros2 topic hz`" + `.`,
		// 3
		`## Services
A service is a remote procedure call: a client sends one request and blocks, or awaits a future, until the server returns one response. Services fit quick queries and commands that finish at once, such as resetting an odometer, spawning an entity in the simulator or asking for the current map. They are a poor fit for anything slow, because the caller gets no news until the work is done.`,
		// 4
		`## Actions
Actions are built for long-running, preemptible tasks like navigating to a goal pose or executing a grasp. The action client sends a goal; the server accepts or rejects it, publishes feedback while it works (for example the remaining distance), and finally returns a result. The client can cancel the goal at any time. Under the hood an action is made of services and topics.`,
		// 5
		`## Parameters
Parameters let you configure a node without recompiling it: a maximum speed, a camera frame rate or a topic name. Each node owns its parameters, declares them with types and defaults, and can reject invalid values in a callback. Parameters can be set from the command line, from a YAML file passed at launch, or changed at runtime with ` + "`ros2 param set`" + `.`,
		// 6
		`## Launch files
Starting ten nodes by hand in ten terminals quickly gets tedious. A launch file, usually written in Python, describes which nodes to start, with which parameters, remappings and namespaces, and can include other launch files. Running ` + "`ros2 launch my_robot bringup.launch.py`" + ` brings the whole system up with one command, and arguments let the same file serve the simulator and the real robot.`,
		// 7
		`## Workspaces, packages and colcon
Code in ROS 2 is organised in packages, each with a ` + "`package.xml`" + ` manifest that lists its dependencies. Packages live in the ` + "`src`" + ` folder of a workspace and are compiled with ` + "`colcon build`" + `. After building, you source ` + "`install/setup.bash`" + ` so that the shell can find the new executables. Python packages use ament_python, C++ packages use ament_cmake.`,
		// 8
		`## A minimal rclpy publisher
` + "```python\nimport rclpy\nfrom rclpy.node import Node\nfrom std_msgs.msg import String\n\nclass Talker(Node):\n    def __init__(self):\n        super().__init__('talker')\n        self.pub = self.create_publisher(String, 'chatter', 10)\n        self.timer = self.create_timer(0.5, self.tick)\n\n    def tick(self):\n        msg = String()\n        msg.data = 'hello'\n        self.pub.publish(msg)\n```" + `
The timer calls ` + "`tick`" + ` twice a second, and ` + "`rclpy.spin`" + ` keeps the node alive to service callbacks.`,
		// 9
		`## Quality of service
QoS policies decide how messages travel. Reliable delivery retransmits lost samples, while best effort drops them, which is usually right for high-rate sensor data where only the newest reading matters. Durability set to transient local lets a late-joining subscriber receive the last message, useful for maps and robot descriptions. A publisher and a subscriber with incompatible profiles silently never connect.`,
		// 10
		`## Coordinate frames with tf2
A robot has many coordinate frames: the map, the odometry origin, the base, each link, every sensor. The tf2 library keeps a time-stamped tree of transforms between them, so a node can ask where the gripper was relative to the map 50 milliseconds ago. Static transforms describe rigidly mounted sensors; dynamic ones come from joint states and localization.`,
		// 11
		`## Describing a robot with URDF
The Unified Robot Description Format is an XML dialect that lists a robot's links and the joints connecting them. Each link has visual geometry for display, collision geometry for contact checks and inertial data (mass and inertia tensor) for physics. Joints are revolute, continuous, prismatic or fixed, with an axis and limits. Xacro adds macros and variables so that a humanoid with two identical legs is not written twice.`,
		// 12
		`## Visualising with RViz
RViz is the 3D visualiser of ROS 2. It subscribes to topics and draws what the robot believes: its model from the robot description, the tf tree, laser scans, point clouds, camera images, planned paths and markers. It does not simulate anything; it only displays data, which makes it the first tool to open when a robot behaves strangely.`,
		// 13
		`## Gazebo: a physics simulator
Gazebo simulates rigid-body physics, sensors and actuators so you can develop and test without hardware. Worlds are described in SDF files with models, lights and terrain. The ros_gz bridge connects Gazebo transport to ROS 2 topics, so a controller node cannot tell whether its joint commands go to a simulated or a real robot. Simulation is cheap to reset, safe to crash and easy to run in CI.`,
		// 14
		`## Simulated sensors
Gazebo plugins emulate cameras, depth cameras, lidars, IMUs and contact sensors. Each plugin publishes the same message types as the real driver, with configurable noise: Gaussian noise on range readings, bias and drift on the gyroscope. Adding realistic noise matters, because perception code tuned on perfect data breaks on the first real scan.`,
		// 15
		`## Physics engines and their trade-offs
A simulator advances the world in small time steps, solving for contacts, friction and joint constraints. Smaller steps are more accurate but slower. Different engines (ODE, Bullet, DART, PhysX) trade speed against stability in stiff contacts, which matters for walking robots whose feet repeatedly hit the ground. A real-time factor below 1 means the simulation runs slower than the wall clock.`,
		// 16
		`## Unity for human-robot interaction
Unity, a game engine, renders high-fidelity scenes and animated people, which makes it useful for studying how a robot should behave around humans and for building operator interfaces. The Unity Robotics Hub provides a TCP connector to ROS 2 and a URDF importer. Gazebo remains the usual choice for physics accuracy; Unity is chosen for visuals and interaction.`,
		// 17
		`## NVIDIA Isaac Sim
Isaac Sim, built on NVIDIA Omniverse, is a GPU-accelerated robot simulator with RTX ray-traced rendering and PhysX physics. Scenes are stored as USD (Universal Scene Description) files. It ships models of popular robots, a ROS 2 bridge, and Python scripting, and it can run many environments in parallel, which is what reinforcement learning needs.`,
		// 18
		`## Synthetic data and domain randomization
Labelling real images by hand is slow and expensive. Isaac Sim's Replicator generates synthetic datasets with perfect ground truth: bounding boxes, segmentation masks and depth come for free. Domain randomization varies lighting, textures, colours, camera poses and distractor objects from frame to frame, so a detector trained on the synthetic images learns the object's shape rather than the look of one particular scene.`,
		// 19
		`## Isaac ROS and accelerated perception
Isaac ROS is a collection of ROS 2 packages that run perception on NVIDIA GPUs and Jetson modules: stereo depth, AprilTag detection, object detection and visual SLAM. Zero-copy transport (NITROS) passes images between nodes in GPU memory, which cuts latency enough for real-time pipelines on a small onboard computer.`,
		// 20
		`## Visual SLAM
Simultaneous localization and mapping estimates the robot's pose while building a map of an unknown environment. Visual SLAM tracks image features across frames from a stereo or RGB-D camera, often fused with an IMU. When the robot recognises a place it has seen before, loop closure corrects the drift that accumulated along the way.`,
		// 21
		`## Navigation with Nav2
Nav2 takes a goal pose and drives a mobile robot there. A global planner searches a path over a costmap built from the static map and live sensor data; a local controller produces velocity commands that follow the path while avoiding obstacles that appear. Behavior trees orchestrate planning, control and recovery behaviours such as backing up or spinning in place when the robot is stuck.`,
		// 22
		`## Deploying on Jetson
Training happens on workstations with large GPUs, but a robot carries an embedded computer. NVIDIA Jetson boards (Orin Nano, AGX Orin) run Ubuntu and the same ROS 2 stack. To fit their power budget, networks are exported to ONNX and optimised with TensorRT, often quantised to FP16 or INT8, trading a little accuracy for several times the throughput.`,
		// 23
		`## Vision-language-action models
A vision-language-action (VLA) model takes camera images and a natural-language instruction and outputs robot actions. Models like RT-2 and OpenVLA start from a vision-language model pretrained on internet images and text, then are fine-tuned on robot trajectories, with actions encoded as tokens. The web knowledge lets them generalise to objects and commands absent from the robot data.`,
		// 24
		`## LLMs as task planners
A large language model can break a high-level request such as "clean up the table" into a sequence of skills the robot already has: find the cup, pick it up, place it in the sink. The planner's output is checked against the available skills and the current scene, because a language model alone does not know what is physically possible; approaches like SayCan score each step by how feasible it is.`,
		// 25
		`## Voice commands with speech recognition
To take spoken instructions, a robot first transcribes audio to text. OpenAI's Whisper is a speech recognition model robust to accents and background noise; a ROS 2 node can capture microphone audio, run Whisper, and publish the transcript as a string message for the language planner to interpret.`,
		// 26
		`## Grounding language in perception
Words like "the red mug on the left" must be linked to actual pixels and 3D positions before a robot can act. Open-vocabulary detectors and vision-language models such as CLIP score image regions against a text phrase, and the chosen region is projected into the robot's frame with the depth image. This step, called grounding, connects the language model's plan to the physical world.`,
		// 27
		`## Forward and inverse kinematics
Forward kinematics computes where the end effector is from the joint angles, by chaining the transforms of each link. Inverse kinematics solves the opposite problem: which joint angles place the hand at a desired pose. It may have several solutions or none, and numerical solvers based on the Jacobian iterate towards an answer while respecting joint limits.`,
		// 28
		`## Balance and the zero moment point
A standing or walking biped is stable while the zero moment point, the point on the ground where the net moment of the contact forces has no horizontal component, stays inside the support polygon spanned by the feet in contact. Controllers shift the centre of mass and adjust ankle torques to keep it there; if it reaches the polygon's edge, the robot starts to tip.`,
		// 29
		`## Bipedal gait
Human-like walking alternates a single-support phase, with one foot swinging, and a short double-support phase. A gait generator plans footstep positions and a centre-of-mass trajectory, often using a simplified model such as the linear inverted pendulum. Whole-body controllers then compute joint torques that realise the plan while keeping the torso upright.`,
		// 30
		`## Grasping and manipulation
Picking up an object requires choosing a grasp: where the fingers contact the object and with what force. Grasp planners score candidate grasps on a point cloud for stability, while compliant control lets the hand comply with small position errors instead of crushing the object. Tactile sensors in the fingertips detect slip and contact that cameras cannot see.`,
		// 31
		`## Reinforcement learning for locomotion
Instead of hand-designing a gait, a policy can learn to walk by trial and error in simulation. Thousands of parallel environments in Isaac Lab collect experience; the policy maximises a reward that favours forward velocity and penalises falls, energy use and jerky motion. Training takes hours on a GPU instead of months on hardware.`,
		// 32
		`## Crossing the sim-to-real gap
A policy that walks perfectly in simulation may stumble on the real robot, because no simulator models friction, motor dynamics, latency and sensor noise exactly. Randomizing these physical parameters during training makes the policy robust to the mismatch, and system identification measures the real robot's parameters to make the simulation closer to reality.`,
		// 33
		`## Actuators
Humanoid joints are driven by electric motors with gearboxes, by hydraulics, or by series elastic actuators that put a spring between motor and load. High gear ratios give torque but make a joint stiff and hard to back-drive; quasi-direct-drive motors with low ratios are more transparent and absorb impacts, which suits legs. Battery capacity and heat limit how long a robot can work.`,
		// 34
		`## Sensors on a humanoid
An inertial measurement unit reports angular velocity and acceleration for balance. Joint encoders measure angles, and force-torque sensors in the ankles and wrists measure contact forces. Depth cameras and lidar give a 3D view of the surroundings, while microphones and tactile skins support interaction.`,
		// 35
		`## Safety and ethics
Robots that share space with people must be safe by design: speed and force limits, emergency stops and monitored zones. Humanoids in homes and workplaces also raise questions of privacy, because they carry cameras and microphones, of job displacement, and of how much people should trust a machine that looks human.`,
	}
	queries := []devQuery{
		{"Is ROS really an operating system like Linux?", 0},
		{"What communication standard does the second version of ROS rely on?", 0},
		{"What is the smallest building block of a ROS program that does one job?", 1},
		{"How can I list the running programs in my ROS system?", 1},
		{"How do I stream camera frames from one program to many others?", 2},
		{"How can I see what data is being sent on a channel?", 2},
		{"What should I use for a quick request that returns an answer right away?", 3},
		{"Why is a request-response call bad for slow jobs?", 3},
		{"How do I send a robot to a location and get progress updates that I can abort?", 4},
		{"How do I change a node's settings like max speed without rebuilding the code?", 5},
		{"How can I start many programs at once with one command?", 6},
		{"How do I compile my code and make the shell find the new programs?", 7},
		{"Where are a package's dependencies declared?", 7},
		{"Show me example Python code that sends a message periodically", 8},
		{"Why would a subscriber never get messages from a publisher even though the topic name matches?", 9},
		{"Should sensor streams drop old samples or resend them?", 9},
		{"How do I find the position of the hand relative to the map at an earlier time?", 10},
		{"Which XML file describes the links, joints and masses of my robot?", 11},
		{"How do I avoid writing the same leg twice in a robot model?", 11},
		{"What tool shows laser scans and point clouds in 3D?", 12},
		{"Can I test my controller without real hardware?", 13},
		{"How are simulated worlds described and connected to ROS?", 13},
		{"How do I add noise to a fake lidar in simulation?", 14},
		{"Why does a smaller time step make simulation slower but more accurate?", 15},
		{"Which engine handles contacts better for legged robots?", 15},
		{"Which game engine is good for studying how robots interact with people?", 16},
		{"What is Omniverse and which file format stores scenes?", 17},
		{"How can I make lots of labelled training images without annotating photos?", 18},
		{"Why vary textures and lighting when generating training data?", 18},
		{"How can perception run faster on the GPU of a small onboard board?", 19},
		{"How does a robot know where it is while drawing a map with a camera?", 20},
		{"What corrects accumulated drift when a place is visited again?", 20},
		{"How does a wheeled robot plan a route and dodge obstacles?", 21},
		{"What happens when the robot gets stuck during navigation?", 21},
		{"How do I make a neural network small and fast enough for a Jetson?", 22},
		{"Can a model turn a camera image and an instruction into motor commands?", 23},
		{"How does a language model break a chore into steps a robot can do?", 24},
		{"How can a robot understand spoken commands?", 25},
		{"How do words like 'the blue cup' get matched to objects in the image?", 26},
		{"How do I compute which joint angles put the hand at a target?", 27},
		{"Why doesn't a two-legged robot fall over when standing?", 28},
		{"How is a walking pattern planned for a humanoid?", 29},
		{"How does a hand pick up a fragile object without breaking it?", 30},
		{"Can a robot teach itself to walk by trial and error?", 31},
		{"Why does a policy trained in simulation fail on the physical robot?", 32},
		{"What kinds of motors move humanoid joints?", 33},
		{"What sensors help a humanoid keep balance?", 34},
		{"What are the privacy concerns of home robots?", 35},
	}
	return docs, queries
}

// devQuery is a question and the index of the chunk that answers it.
type devQuery struct {
	q   string
	doc int
}
